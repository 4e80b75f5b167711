//! Reading `GET /events` (seed §2, SPEC D3): a `text/event-stream` of `event: bridge` frames and
//! `: keep-alive` comments every 15 s. The bridge sends no SSE ids, so a reader resumes by its
//! own `sinceSeq`, never by `Last-Event-ID`.
//!
//! The framing is `dsh_wire::SseReader`, the one SSE reader of the project (the reference
//! bridge's tests read their own stream with it), which already drops a frame past its cap. This
//! file adds what a long-lived stream from another process needs around it: an idle limit, since
//! a stream that sends not even a keep-alive for three periods is dead even if the socket is not.

use std::time::Duration;

use futures::Stream;

use crate::dsh_wire::{self as wire, Event, SseItem, SseReader};

/// The bridge sends a keep-alive comment every 15 s; three missed ones mean the stream is dead.
pub(crate) const IDLE_LIMIT: Duration = Duration::from_secs(3 * wire::limits::KEEP_ALIVE_SECS);

/// Most bytes of one frame. The bridge cuts every text it projects (seed §3), so a real frame is
/// far smaller; a larger one is dropped by the reader, never buffered whole.
pub(crate) const MAX_FRAME_BYTES: usize = 1024 * 1024;

/// Why the stream ended. Every one of these ends it; the follower reads the transcript from its
/// cursor and opens a new stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SseError {
    #[error("no byte from the event stream for {0} s, not even a keep-alive")]
    Idle(u64),
    #[error("the event stream broke: {0}")]
    Read(String),
    #[error("the bridge closed the event stream")]
    Closed,
}

/// One bridge event from the stream, or a `bridge` frame that is not a readable event (kept as
/// its error, so the reader can log it; it never becomes a made-up event).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Frame {
    Event(Box<Event>),
    Unreadable(String),
}

/// Parses and cleans one `bridge` frame's data (SPEC L1 in spirit).
pub(crate) fn read_frame(data: &str) -> Frame {
    match serde_json::from_str::<Event>(data) {
        Ok(mut event) => {
            let mut report = crate::wire::Report::default();
            event.sanitize("event", &mut report);
            Frame::Event(Box::new(event))
        }
        Err(error) => Frame::Unreadable(error.to_string()),
    }
}

/// The frames of an open `/events` response, in order, ending with the reason it ended.
pub(crate) fn frames(
    response: reqwest::Response,
    idle: Duration,
) -> impl Stream<Item = Result<Frame, SseError>> + Send {
    struct State {
        response: Option<reqwest::Response>,
        reader: SseReader,
        ready: std::collections::VecDeque<Frame>,
    }
    let state = State {
        response: Some(response),
        reader: SseReader::new(MAX_FRAME_BYTES),
        ready: std::collections::VecDeque::new(),
    };
    futures::stream::unfold(state, move |mut state| async move {
        loop {
            if let Some(frame) = state.ready.pop_front() {
                return Some((Ok(frame), state));
            }
            let response = state.response.as_mut()?;
            let chunk = match tokio::time::timeout(idle, response.chunk()).await {
                Err(_) => Err(SseError::Idle(idle.as_secs())),
                Ok(Err(error)) => Err(SseError::Read(error.to_string())),
                Ok(Ok(None)) => Err(SseError::Closed),
                Ok(Ok(Some(chunk))) => Ok(chunk),
            };
            match chunk {
                Ok(chunk) => {
                    for item in state.reader.feed(&chunk) {
                        match item {
                            SseItem::Frame { event, data } if event == wire::SSE_EVENT_NAME => {
                                state.ready.push_back(read_frame(&data));
                            }
                            // A newer bridge may name other frames (SPEC V2); keep-alives only
                            // prove the stream is alive, which the chunk itself already did.
                            SseItem::Frame { .. } | SseItem::Comment(_) => {}
                        }
                    }
                }
                Err(error) => {
                    state.response = None;
                    return Some((Err(error), state));
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d4_a_frame_is_read_and_cleaned() {
        let frame = read_frame(
            r#"{"taskId":"t","sessionSeq":3,"at":1,"sessionEventType":"m","kind":"message","role":"assistant","text":"a\u001bb"}"#,
        );
        let Frame::Event(event) = frame else {
            panic!("an event")
        };
        assert_eq!(event.session_seq, 3);
        assert!(matches!(&event.body, wire::EventBody::Message(m) if m.text == "ab"));
    }

    #[test]
    fn d4_a_frame_without_seq_is_unreadable_not_invented() {
        assert!(matches!(
            read_frame(r#"{"kind":"message"}"#),
            Frame::Unreadable(_)
        ));
    }
}
