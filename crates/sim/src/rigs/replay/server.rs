//! The replay's HTTP face: each request becomes an [`Incoming`], gets its recorded reply at the
//! moment of the timeline the replay has reached, and a request the recording has no reply for
//! gets an honest `404 not-found` naming it (SPEC W6), never a crash.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming as Body;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};

use super::answers::{Answers, Incoming, Reply, Served};
use crate::durable::listen::Handler;
use crate::wire::{ErrorBody, ErrorCode, VERSION_HEADER, limits};

/// A sender slower than this is cut off, as the reference agent does.
const BODY_DEADLINE: Duration = Duration::from_secs(10);

/// How fast the recording's clock runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// Straight to the end state (`--speed 0`).
    End,
    /// This many recorded seconds per second of replay.
    Times(f64),
}

impl Speed {
    /// `0` is the end state; any other finite, positive number a rate.
    pub fn parse(text: &str) -> Result<Self, String> {
        let rate: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("{text} is not a speed like 1, 2.5 or 0"))?;
        if !rate.is_finite() || rate < 0.0 {
            return Err("give a speed of 0 (the end state) or more".into());
        }
        Ok(if rate == 0.0 {
            Self::End
        } else {
            Self::Times(rate)
        })
    }

    /// The recording's time after `elapsed` of replay, in ms.
    pub(crate) fn recorded_ms(self, elapsed: Duration) -> u64 {
        match self {
            Self::End => u64::MAX,
            Self::Times(rate) => {
                let ms = elapsed.as_secs_f64() * 1000.0 * rate;
                if ms >= u64::MAX as f64 {
                    u64::MAX
                } else {
                    ms as u64
                }
            }
        }
    }
}

/// Serves one agent's recorded replies.
pub struct ReplayServer {
    answers: Mutex<Answers>,
    began: Instant,
    speed: Speed,
}

impl ReplayServer {
    /// The clock starts now.
    pub fn new(answers: Answers, speed: Speed) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers),
            began: Instant::now(),
            speed,
        })
    }

    async fn reply(&self, request: Request<Body>) -> Response<Full<Bytes>> {
        let method = request.method().as_str().to_string();
        let path = request.uri().path_and_query().map_or_else(
            || request.uri().path().to_string(),
            |p| p.as_str().to_string(),
        );
        let header = |name| {
            request
                .headers()
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .map(str::to_string)
        };
        let if_none_match = header(header::IF_NONE_MATCH.as_str());
        let versioned = request.headers().contains_key(VERSION_HEADER);
        let body = match read_body(request).await {
            Ok(body) => body,
            Err(refusal) => return refusal,
        };
        let now_ms = self.speed.recorded_ms(self.began.elapsed());
        let incoming = Incoming {
            method: &method,
            path: &path,
            if_none_match: if_none_match.as_deref(),
            versioned,
            body: &body,
        };
        let served = match self.answers.lock() {
            Ok(mut answers) => answers.answer(&incoming, now_ms),
            Err(_) => {
                tracing::error!("the replay's answers broke earlier");
                return error(
                    ErrorBody::new(ErrorCode::Internal)
                        .with_message("the replay broke earlier; start it again"),
                );
            }
        };
        match served {
            Served::Recorded(reply) => {
                tracing::debug!(%method, %path, status = reply.status, "served from the recording");
                recorded(reply)
            }
            Served::Missing => {
                let message = format!("this recording has no reply for {method} {path}");
                tracing::warn!("{message}");
                error(ErrorBody::new(ErrorCode::NotFound).with_message(message))
            }
        }
    }
}

impl Handler for ReplayServer {
    async fn handle(
        self: Arc<Self>,
        request: Request<Body>,
    ) -> Result<Response<Full<Bytes>>, std::convert::Infallible> {
        Ok(self.reply(request).await)
    }
}

/// The body within SPEC W4's 64 KiB, or the refusal the reference agent would give.
async fn read_body(request: Request<Body>) -> Result<Bytes, Response<Full<Bytes>>> {
    let too_large = || {
        error(ErrorBody::new(ErrorCode::TooLarge).with_message(format!(
            "a request body is at most {} bytes",
            limits::MAX_REQUEST_BODY
        )))
    };
    let limited = Limited::new(request.into_body(), limits::MAX_REQUEST_BODY);
    match tokio::time::timeout(BODY_DEADLINE, limited.collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(cause)) if cause.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Ok(Err(cause)) => Err(error(
            ErrorBody::new(ErrorCode::BadRequest)
                .with_message(format!("the request body could not be read: {cause}")),
        )),
        Err(_) => Err(error(
            ErrorBody::new(ErrorCode::BadRequest)
                .with_message("the request body did not arrive in time"),
        )),
    }
}

fn recorded(reply: Reply) -> Response<Full<Bytes>> {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut builder = Response::builder().status(status);
    if status != StatusCode::NOT_MODIFIED {
        builder = builder.header(header::CONTENT_TYPE, "application/json");
    }
    if let Some(tag) = reply
        .etag
        .as_deref()
        .and_then(|t| HeaderValue::from_str(t).ok())
    {
        builder = builder.header(header::ETAG, tag);
    }
    if let Some(place) = reply
        .location
        .as_deref()
        .and_then(|l| HeaderValue::from_str(l).ok())
    {
        builder = builder.header(header::LOCATION, place);
    }
    builder
        .body(Full::new(reply.body))
        .unwrap_or_else(|_| internal())
}

fn error(body: ErrorBody) -> Response<Full<Bytes>> {
    let status =
        StatusCode::from_u16(body.code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let bytes = serde_json::to_vec(&body).unwrap_or_else(|_| br#"{"code":"internal"}"#.to_vec());
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(bytes)))
        .unwrap_or_else(|_| internal())
}

fn internal() -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(br#"{"code":"internal"}"#)));
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds() {
        assert_eq!(Speed::parse("0"), Ok(Speed::End));
        assert_eq!(Speed::parse("2.5"), Ok(Speed::Times(2.5)));
        assert!(Speed::parse("-1").is_err());
        assert!(Speed::parse("fast").is_err());
        assert_eq!(
            Speed::Times(2.0).recorded_ms(Duration::from_millis(1500)),
            3000
        );
        assert_eq!(Speed::End.recorded_ms(Duration::ZERO), u64::MAX);
    }
}
