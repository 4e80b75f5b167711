//! The acts of `--chaos` on one request, as a [`Handler`] around the agent's [`Server`]
//! ([`Chaotic`]): an answer that finds its ask timed out just before (expire-early), a POST
//! applied and then its connection dropped (drop-after-apply), a reply held back (delay), an
//! events reply that repeats events (dup-events). Restarts happen in `durable::runtime`, on the
//! world's own clock (`AgentOptions::restart_every`).
//!
//! Every act is logged at info as `chaos kind=KIND request_id=ID …`, and with any chaos on
//! every POST the world ran is logged as `applied request_id=ID`, so a reader of the log can
//! tell what was done and prove that nothing ran twice.

use std::convert::Infallible;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Body;
use hyper::header;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use time::OffsetDateTime;

use super::chaos::Chaos;
use super::chaos_state::ChaosState;
use crate::durable::listen::{DropConnection, Handler};
use crate::durable::runtime::Agent;
use crate::durable::server::{Reply, Server, error_reply};
use crate::wire::paths::PaneVerb;
use crate::wire::{self, ErrorBody, ErrorCode, limits};

/// A body slower than this is given up, as the server itself does.
const BODY_DEADLINE: Duration = Duration::from_secs(10);

/// The agent's server with `--chaos` around it: what a listener serves when chaos is on.
pub struct Chaotic {
    server: Arc<Server>,
    /// The dice and what they remember. When both are needed (expire-early) the agent is
    /// locked first, then the dice; never the other way round.
    dice: Mutex<ChaosState>,
}

impl Chaotic {
    /// `server` failing as `spec` says, its dice seeded from the world's `seed`.
    pub fn new(server: Arc<Server>, spec: Chaos, seed: u64) -> Arc<Self> {
        if !spec.is_quiet() {
            tracing::warn!(chaos = %spec, "failing on purpose");
        }
        Arc::new(Self {
            server,
            dice: Mutex::new(ChaosState::new(spec, seed)),
        })
    }

    /// Acts on the dice under their lock; None once a panic broke them (then no chaos).
    fn with_dice<T>(&self, act: impl FnOnce(&mut ChaosState) -> T) -> Option<T> {
        self.dice.lock().ok().map(|mut dice| act(&mut dice))
    }
}

impl Handler for Chaotic {
    fn handle(
        self: Arc<Self>,
        request: hyper::Request<hyper::body::Incoming>,
    ) -> impl Future<Output = Result<Reply, Infallible>> + Send {
        serve(self, request)
    }
}

/// What a request is, as far as chaos cares.
enum Target {
    Answer { pane: String },
    Events { pane: String, after: u64 },
    OtherPost,
    Other,
}

impl Target {
    fn of(method: &Method, path: &str, query: &str) -> Self {
        let rest = path
            .strip_prefix(wire::paths::PREFIX)
            .and_then(|rest| rest.strip_prefix("/pane/"));
        let pane_and_verb = rest.and_then(|rest| rest.split_once('/'));
        let decoded = |pane: &str| {
            percent_encoding::percent_decode_str(pane)
                .decode_utf8()
                .map(|p| p.into_owned())
                .ok()
        };
        match (method, pane_and_verb) {
            (&Method::POST, Some((pane, verb)))
                if PaneVerb::parse(verb) == Some(PaneVerb::Answer) =>
            {
                match decoded(pane) {
                    Some(pane) => Self::Answer { pane },
                    None => Self::OtherPost,
                }
            }
            (&Method::GET, Some((pane, "events"))) => match decoded(pane) {
                Some(pane) => Self::Events {
                    pane,
                    after: query_after(query),
                },
                None => Self::Other,
            },
            (&Method::POST, _) => Self::OtherPost,
            _ => Self::Other,
        }
    }
}

/// The `after` of an events query; a missing or broken one reads as 0, as the server does
/// for a missing one (a broken one is refused there, and this reply is not touched).
fn query_after(query: &str) -> u64 {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("after="))
        .and_then(|value| value.parse().ok())
        .unwrap_or(0)
}

/// Serves one request, with the agent's chaos. Quiet dice go straight to the server.
/// Never fails, like the server: a dropped reply is a reply marked [`DropConnection`].
async fn serve<B>(chaotic: Arc<Chaotic>, request: Request<B>) -> Result<Reply, Infallible>
where
    B: Body<Data = Bytes> + Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let server = Arc::clone(&chaotic.server);
    let quiet = chaotic
        .with_dice(|dice| dice.spec.is_quiet())
        .unwrap_or(true);
    if quiet || !server.admits(request.headers()) {
        let Ok(reply) = server.handle(request).await;
        return Ok(reply);
    }
    let path = request.uri().path().to_string();
    let target = Target::of(
        request.method(),
        &path,
        request.uri().query().unwrap_or_default(),
    );
    let reply = match &target {
        Target::Answer { pane } => answer_after_expire_early(&chaotic, request, pane).await,
        _ => {
            let Ok(reply) = Arc::clone(&server).handle(request).await;
            reply
        }
    };
    let (parts, body) = reply.into_parts();
    let Ok(collected) = body.collect().await;
    let mut bytes = collected.to_bytes();
    let mut request_id = "-".to_string();
    if matches!(target, Target::Answer { .. } | Target::OtherPost) {
        let reply_body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if let Some(id) = reply_body["requestId"].as_str() {
            request_id = id.to_string();
        }
        let applied = parts.status.is_success()
            && reply_body["code"] == "ok"
            && reply_body["replayed"] != true;
        if applied {
            tracing::info!(request_id = %request_id, path = %path, "applied");
            let dropped = chaotic
                .with_dice(|dice| dice.roll(dice.spec.drop_after_apply))
                .unwrap_or(false);
            if dropped {
                tracing::info!(kind = %"drop-after-apply", request_id = %request_id, path = %path, "chaos");
                let mut reply = Response::new(Full::new(Bytes::new()));
                reply.extensions_mut().insert(DropConnection);
                return Ok(reply);
            }
        }
    }
    if let Target::Events { pane, after } = &target
        && parts.status == StatusCode::OK
        && let Some(repeated) = chaotic
            .with_dice(|dice| repeat_events(dice, pane, *after, &bytes))
            .flatten()
    {
        tracing::info!(
            kind = %"dup-events",
            request_id = %request_id,
            path = %path,
            pane = %pane,
            repeated = repeated.count,
            how = %repeated.how,
            "chaos"
        );
        bytes = repeated.body;
    }
    let hold = chaotic
        .with_dice(|dice| {
            let delay = dice.spec.delay?;
            dice.roll(delay.probability).then_some(delay.hold)
        })
        .flatten();
    if let Some(hold) = hold {
        tracing::info!(
            kind = %"delay",
            request_id = %request_id,
            path = %path,
            hold = %humantime::format_duration(hold),
            "chaos"
        );
        tokio::time::sleep(hold).await;
    }
    Ok(Response::from_parts(parts, Full::new(bytes)))
}

/// An answer: with `expire-early`, its ask may time out just before the answer is handed on,
/// so the answer finds it decided by timeout (SPEC A6, A7). The body is read here to learn
/// the ask, then handed on as it came.
async fn answer_after_expire_early<B>(chaotic: &Chaotic, request: Request<B>, pane: &str) -> Reply
where
    B: Body<Data = Bytes> + Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let server = &chaotic.server;
    let wanted = chaotic
        .with_dice(|dice| dice.spec.expire_early > 0.0)
        .unwrap_or(false);
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.trim().parse::<usize>().ok());
    // Only a body of a known, allowed length is read here: anything else is the server's to
    // refuse exactly as SPEC W4 says.
    if !wanted || declared.is_none_or(|length| length > limits::MAX_REQUEST_BODY) {
        let Ok(reply) = Arc::clone(server).handle(request).await;
        return reply;
    }
    let (parts, body) = request.into_parts();
    let limited = Limited::new(body, limits::MAX_REQUEST_BODY);
    let bytes = match tokio::time::timeout(BODY_DEADLINE, limited.collect()).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(_)) | Err(_) => {
            return bad_request("the request body could not be read in time");
        }
    };
    if let Ok(body) = serde_json::from_slice::<Value>(&bytes)
        && let Some(ask_id) = body["askId"].as_str()
    {
        let request_id = body["requestId"].as_str().unwrap_or("-");
        server.with_agent(|agent| expire_early(agent, &chaotic.dice, pane, ask_id, request_id));
    }
    let Ok(reply) = Arc::clone(server)
        .handle(Request::from_parts(parts, Full::new(bytes)))
        .await;
    reply
}

/// Times out the open ask `ask_id` of `pane` now, before its `expiresAt`, when the dice say
/// so: the world's own timeout rule closes it (`decidedBy: timeout`, SPEC A6), so a later tap
/// gets `409 decided` with that outcome (SPEC A7).
/// Called under the agent's lock; the dice are locked after it.
fn expire_early(
    agent: &mut Agent,
    dice: &Mutex<ChaosState>,
    pane: &str,
    ask_id: &str,
    request_id: &str,
) {
    if !agent.world.ready {
        return;
    }
    let now = OffsetDateTime::now_utc();
    let Some(open) = agent
        .world
        .layout
        .panes
        .get_mut(pane)
        .and_then(|p| p.asks.iter_mut().find(|a| a.ask.id == ask_id))
    else {
        return;
    };
    let rolled = dice.lock().is_ok_and(|mut dice| {
        let p = dice.spec.expire_early;
        dice.roll(p)
    });
    if !rolled {
        return;
    }
    let expires_at = open
        .ask
        .expires_at
        .replace(wire::Stamp::of(now))
        .map_or_else(|| "none".into(), |stamp| stamp.text().to_string());
    agent.world.expire_asks(now);
    tracing::info!(
        kind = %"expire-early",
        request_id = %request_id,
        pane = %pane,
        ask_id = %ask_id,
        expires_at = %expires_at,
        "chaos"
    );
}

/// What a `dup-events` act did to a reply.
struct Repeated {
    body: Bytes,
    count: usize,
    how: &'static str,
}

/// With `dup-events`, an events reply repeats events the pane already sent (seq at most the
/// reader's cursor), or, when there are none, carries its first event twice, as an agent that
/// delivers at least once might. The cursor stays as it was. A reply that would pass the
/// limits of SPEC L is left alone, so chaos never makes a reader cut (and lose) events.
fn repeat_events(
    state: &mut ChaosState,
    pane: &str,
    after: u64,
    bytes: &Bytes,
) -> Option<Repeated> {
    let mut reply: Value = serde_json::from_slice(bytes).ok()?;
    if !reply["view"].is_null() {
        return None;
    }
    let epoch = reply["epoch"].as_str()?.to_string();
    let events = reply["events"].as_array()?.clone();
    let roll = state.roll(state.spec.dup_events);
    state.note_sent(pane, &epoch, &events);
    if !roll {
        return None;
    }
    let earlier = state.already_sent(pane, &epoch, after);
    let (repeated, how) = if !earlier.is_empty() {
        let mut repeated = earlier;
        repeated.extend(events.iter().cloned());
        (repeated, "already-sent")
    } else {
        let first = events.first()?.clone();
        let mut repeated = events.clone();
        repeated.insert(1, first);
        (repeated, "twice-in-one-reply")
    };
    let count = repeated.len() - events.len();
    if repeated.len() > limits::MAX_EVENTS_PER_REPLY {
        return None;
    }
    reply["events"] = Value::Array(repeated);
    let body = serde_json::to_vec(&reply).ok()?;
    if body.len() > limits::MAX_EVENTS_REPLY {
        return None;
    }
    Some(Repeated {
        body: Bytes::from(body),
        count,
        how,
    })
}

fn bad_request(message: &str) -> Reply {
    error_reply(&ErrorBody::new(ErrorCode::BadRequest).with_message(message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(dup: f64) -> ChaosState {
        ChaosState::new(
            Chaos {
                dup_events: dup,
                ..Chaos::default()
            },
            1,
        )
    }

    fn reply(epoch: &str, seqs: &[u64]) -> Bytes {
        let events: Vec<Value> = seqs
            .iter()
            .map(|s| json!({"seq": s, "type": "item"}))
            .collect();
        let cursor = seqs.last().copied().unwrap_or(0);
        Bytes::from(
            json!({"epoch": epoch, "cursor": cursor, "events": events, "more": false}).to_string(),
        )
    }

    fn seqs(bytes: &Bytes) -> Vec<u64> {
        let value: Value = serde_json::from_slice(bytes).expect("json");
        value["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter_map(|e| e["seq"].as_u64())
            .collect()
    }

    #[test]
    fn first_the_same_event_twice_then_events_already_sent() {
        let mut state = state(1.0);
        let first = repeat_events(&mut state, "p", 0, &reply("e", &[1, 2])).expect("repeats");
        assert_eq!(seqs(&first.body), vec![1, 1, 2]);
        assert_eq!(first.how, "twice-in-one-reply");
        let second = repeat_events(&mut state, "p", 2, &reply("e", &[3])).expect("repeats");
        assert_eq!(seqs(&second.body), vec![1, 2, 3]);
        assert_eq!((second.how, second.count), ("already-sent", 2));
        let value: Value = serde_json::from_slice(&second.body).expect("json");
        assert_eq!(value["cursor"], 3, "the cursor stays");
        let empty = repeat_events(&mut state, "p", 3, &reply("e", &[])).expect("repeats");
        assert_eq!(seqs(&empty.body), vec![1, 2, 3]);
    }

    #[test]
    fn a_view_or_a_new_epoch_is_not_repeated_into() {
        let mut state = state(1.0);
        let view = Bytes::from(
            json!({"epoch": "e", "cursor": 4, "events": [], "view": {"items": []}}).to_string(),
        );
        assert!(repeat_events(&mut state, "p", 0, &view).is_none());
        repeat_events(&mut state, "p", 0, &reply("e", &[1]));
        let other = repeat_events(&mut state, "p", 1, &reply("f", &[1])).expect("repeats");
        assert_eq!(seqs(&other.body), vec![1, 1], "nothing of epoch e");
        assert!(repeat_events(&mut state, "q", 0, &reply("e", &[])).is_none());
    }

    #[test]
    fn quiet_dice_leave_the_reply() {
        let mut state = state(0.0);
        assert!(repeat_events(&mut state, "p", 0, &reply("e", &[1, 2])).is_none());
    }

    #[test]
    fn targets() {
        assert!(matches!(
            Target::of(&Method::POST, "/session/v1/pane/p%2D1/answer", ""),
            Target::Answer { pane } if pane == "p-1"
        ));
        assert!(matches!(
            Target::of(&Method::GET, "/session/v1/pane/p-1/events", "after=7&epoch=e"),
            Target::Events { pane, after: 7 } if pane == "p-1"
        ));
        assert!(matches!(
            Target::of(&Method::POST, "/session/v1/pane/p-1/send", ""),
            Target::OtherPost
        ));
        assert!(matches!(
            Target::of(&Method::GET, "/session/v1/snapshot", ""),
            Target::Other
        ));
    }
}
