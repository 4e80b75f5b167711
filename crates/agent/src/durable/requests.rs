//! The agent's memory of request ids (SPEC Q1, Q3): a repeat of a finished id gets the first
//! reply again with `replayed: true` and runs nothing; the same id with another payload gets
//! `409 request-id-reused`.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};

/// How many ids the agent keeps per epoch. SPEC Q3 asks for at least 500.
pub(crate) const REMEMBERED_REQUEST_IDS: usize = 500;

/// The first reply to a request id: its status and body.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredReply {
    pub status: u16,
    pub body: Value,
}

/// What the memory says about an incoming request.
#[derive(Debug, Clone, PartialEq)]
pub enum Recall {
    /// Never seen: run it, then [`RequestMemory::remember`] the reply.
    New,
    /// Seen with the same payload: send this again, marked replayed.
    Replay(StoredReply),
    /// Seen with another payload (SPEC Q3).
    Reused,
}

#[derive(Debug, Default)]
pub struct RequestMemory {
    order: VecDeque<String>,
    replies: HashMap<String, (String, StoredReply)>,
}

/// A digest of the route and the body without its `requestId`, so the same intent sent again
/// matches and a changed one does not (SPEC Q3).
pub(crate) fn fingerprint(path: &str, body: &Value) -> String {
    let mut payload = sorted(body);
    if let Value::Object(map) = &mut payload {
        map.shift_remove("requestId");
    }
    // Keys sorted at every level, so the same body written in another key order is the same
    // request (serde_json keeps the order it read: the ACP crate turns `preserve_order` on).
    let text = payload.to_string();
    let mut hasher = Sha256::new();
    hasher.update(path.as_bytes());
    hasher.update([0u8]);
    hasher.update(text.as_bytes());
    hex::encode(hasher.finalize())
}

/// A copy of `value` whose objects list their keys in sorted order.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

impl RequestMemory {
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }

    pub fn recall(&self, request_id: &str, fingerprint: &str) -> Recall {
        match self.replies.get(request_id) {
            None => Recall::New,
            Some((seen, reply)) if seen == fingerprint => {
                let mut body = reply.body.clone();
                if let Value::Object(map) = &mut body {
                    map.insert("replayed".into(), Value::Bool(true));
                }
                Recall::Replay(StoredReply {
                    status: reply.status,
                    body,
                })
            }
            Some(_) => Recall::Reused,
        }
    }

    pub fn remember(&mut self, request_id: &str, fingerprint: String, reply: StoredReply) {
        if self
            .replies
            .insert(request_id.to_string(), (fingerprint, reply))
            .is_none()
        {
            self.order.push_back(request_id.to_string());
        }
        while self.order.len() > REMEMBERED_REQUEST_IDS {
            if let Some(oldest) = self.order.pop_front() {
                self.replies.remove(&oldest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn q3_replay_same_payload_refuse_other() {
        let mut memory = RequestMemory::default();
        let body = json!({"requestId": "r1", "text": "hi"});
        let print = fingerprint("/send", &body);
        assert_eq!(memory.recall("r1", &print), Recall::New);
        memory.remember(
            "r1",
            print.clone(),
            StoredReply {
                status: 200,
                body: json!({"code": "ok"}),
            },
        );
        match memory.recall("r1", &print) {
            Recall::Replay(reply) => assert_eq!(reply.body["replayed"], json!(true)),
            other => panic!("expected a replay, got {other:?}"),
        }
        let other = fingerprint("/send", &json!({"requestId": "r1", "text": "bye"}));
        assert_eq!(memory.recall("r1", &other), Recall::Reused);
    }

    #[test]
    fn q3_keeps_at_least_500() {
        let mut memory = RequestMemory::default();
        for i in 0..600 {
            memory.remember(
                &format!("r{i}"),
                "f".into(),
                StoredReply {
                    status: 200,
                    body: json!({}),
                },
            );
        }
        assert_eq!(memory.len(), REMEMBERED_REQUEST_IDS);
        assert_eq!(memory.recall("r99", "f"), Recall::New);
        assert!(matches!(memory.recall("r100", "f"), Recall::Replay(_)));
    }
}
