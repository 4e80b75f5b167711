//! Deny, and say why (SPEC A21): the words a person typed under a permission's Deny follow it
//! to the same pane, as one action. The Deny goes first; only once the agent took it do the
//! words leave, as a message of that pane's outbox (so they are held, retried and taken back
//! like any message, SPEC A16); one receipt says both. Words that could not follow are never
//! dropped: a Deny not taken gives them back to the card's box (or, the card gone, to the
//! pane's), and a message not taken waits above the pane's box.

use std::collections::HashMap;

use crate::engine::{IntentKind, IntentRecord, IntentState};
use crate::model::inbox::AskKey;
use crate::model::intents;

/// The words after each Deny on their way, and the messages they became.
#[derive(Debug, Clone, Default)]
pub struct DenyWords {
    /// By the ask whose Deny is out: the words waiting for it.
    after_deny: HashMap<AskKey, String>,
    /// Messages made of such words, by agent, exactly as handed to the outbox.
    sending: Vec<(String, IntentKind)>,
}

/// What an intent's record means to the words after a Deny.
#[derive(Debug, Clone, PartialEq)]
pub enum Followed {
    /// The record is of nothing here, or says nothing final yet.
    Nothing,
    /// The Deny was taken: these words go to its pane now.
    Send {
        agent: String,
        pane: String,
        text: String,
    },
    /// The Deny was not taken (refused, too late, decided, unknown for good): the words are the
    /// person's again.
    GiveBack { key: AskKey, text: String },
    /// The words' message was taken: Denied, and the words were sent.
    Sent,
    /// The words' message was not taken; the outbox holds it above the pane's box.
    Waits { text: String },
}

impl DenyWords {
    /// A Deny with words is handed to the engine: the words wait for its outcome.
    pub fn deny_sent(&mut self, key: AskKey, text: String) {
        self.after_deny.insert(key, text);
    }

    /// The words waiting for the Deny of this ask, if any.
    pub fn waiting(&self, key: &AskKey) -> Option<&str> {
        self.after_deny.get(key).map(String::as_str)
    }

    /// The words' message was handed to the outbox.
    pub fn message_made(&mut self, agent: &str, kind: IntentKind) {
        self.sending.push((agent.to_string(), kind));
    }

    /// What `record` means to the words: once per final outcome, nothing while it is on its way
    /// or the engine still checks it by itself (SPEC Q4).
    pub fn hear(&mut self, record: &IntentRecord) -> Followed {
        let checked_by_the_engine =
            matches!(record.state, IntentState::Unknown { .. }) && record.checking;
        if intents::is_in_flight(&record.state) || checked_by_the_engine {
            return Followed::Nothing;
        }
        let taken = matches!(
            record.state,
            IntentState::Done { .. } | IntentState::Replayed { .. }
        );
        match &record.kind {
            IntentKind::Answer { pane, ask_id, .. } => {
                let key = AskKey {
                    agent: record.agent.clone(),
                    pane: pane.clone(),
                    ask_id: ask_id.clone(),
                };
                let Some(text) = self.after_deny.remove(&key) else {
                    return Followed::Nothing;
                };
                if taken {
                    Followed::Send {
                        agent: key.agent,
                        pane: key.pane,
                        text,
                    }
                } else {
                    Followed::GiveBack { key, text }
                }
            }
            IntentKind::Send { text, .. } => {
                let Some(at) = self
                    .sending
                    .iter()
                    .position(|(agent, kind)| *agent == record.agent && *kind == record.kind)
                else {
                    return Followed::Nothing;
                };
                self.sending.remove(at);
                if taken {
                    Followed::Sent
                } else {
                    Followed::Waits { text: text.clone() }
                }
            }
            _ => Followed::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Answer, PostReply};

    fn key() -> AskKey {
        AskKey {
            agent: "a".into(),
            pane: "p".into(),
            ask_id: "ask-1".into(),
        }
    }

    fn record(kind: IntentKind, state: IntentState, checking: bool) -> IntentRecord {
        IntentRecord {
            checking,
            ..intents::test_record(kind, state)
        }
    }

    fn deny() -> IntentKind {
        IntentKind::Answer {
            pane: "p".into(),
            ask_id: "ask-1".into(),
            revision: 1,
            answer: Answer::default(),
        }
    }

    fn done() -> IntentState {
        IntentState::Done {
            reply: PostReply::ok("r-1"),
        }
    }

    /// A21: the words go only once the Deny was taken, once; then their message's outcome is
    /// the receipt.
    #[test]
    fn a21_the_words_follow_a_deny_taken_once() {
        let mut words = DenyWords::default();
        words.deny_sent(key(), "use the cache instead".into());
        assert_eq!(
            words.hear(&record(deny(), IntentState::Sending, false)),
            Followed::Nothing
        );
        assert_eq!(
            words.hear(&record(deny(), done(), false)),
            Followed::Send {
                agent: "a".into(),
                pane: "p".into(),
                text: "use the cache instead".into()
            }
        );
        assert_eq!(
            words.hear(&record(deny(), done(), false)),
            Followed::Nothing
        );
        let message = IntentKind::Send {
            pane: "p".into(),
            turn_id: None,
            text: "use the cache instead".into(),
        };
        words.message_made("a", message.clone());
        assert_eq!(
            words.hear(&record(message.clone(), done(), false)),
            Followed::Sent
        );
        assert_eq!(
            words.hear(&record(message, done(), false)),
            Followed::Nothing
        );
    }

    /// A21: a Deny not taken gives the words back; one the engine still checks keeps them.
    #[test]
    fn a21_a_deny_not_taken_gives_the_words_back() {
        let mut words = DenyWords::default();
        words.deny_sent(key(), "no".into());
        let unknown = IntentState::Unknown {
            why: "timeout".into(),
        };
        assert_eq!(
            words.hear(&record(deny(), unknown.clone(), true)),
            Followed::Nothing
        );
        assert_eq!(
            words.hear(&record(deny(), unknown, false)),
            Followed::GiveBack {
                key: key(),
                text: "no".into()
            }
        );
        assert_eq!(words.waiting(&key()), None);
    }
}
