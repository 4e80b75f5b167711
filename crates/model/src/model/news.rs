//! What the engine's news means to the phone, as typed events (docs/ARCHITECTURE.md, "The
//! router routes"): the model takes an intent's record or a card's closing, keeps its own
//! rules (the outbox sends the next message, a stopped turn's queue goes back to its box, a
//! card answered elsewhere gives its words to its pane), and says what happened as [`Heard`].
//! The glass hands each event to the rooms through one hook and says what it says; it never
//! decides by an intent's kind.

use time::OffsetDateTime;

use crate::engine::{Decider, IntentKind, IntentRecord, IntentState};
use crate::model::card_state::CardStatus;
use crate::model::deny_words::Followed;
use crate::model::inbox::AskKey;
use crate::model::intents;
use crate::model::outbox;
use crate::model::outcome::{self, AfterDeny, capitalized};
use crate::model::phone_model::PhoneModel;

/// One thing that happened, for the rooms and the footer.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    /// The agent took an answer to this ask (here or, by the chat, anywhere): its card goes.
    AnswerTaken { key: AskKey },
    /// Another phone answered this ask first: its card goes, and the words typed on it went
    /// to the pane's box when `words_back` (SPEC A7).
    AnsweredElsewhere {
        key: AskKey,
        words: String,
        words_back: bool,
    },
    /// A pane the phone followed is gone (a bridge's task closed): its screen goes.
    PaneGone { agent: String, pane: String },
    /// A reply named a pane (a starter's, a reopen's, a task's): it opens once it is here.
    PaneNamed { agent: String, pane: String },
    /// The pane waited for is here: the pages that started it give way to it.
    PaneReady { agent: String, pane: String },
    /// Words came back to a pane's box: the typing goes there.
    WordsBack { agent: String, pane: String },
    /// The next message of a pane leaves now (one at a time, in order).
    Submit { agent: String, kind: IntentKind },
    /// The agent is asked for news now, not at its next poll.
    PollNow { agent: String },
    /// What became of an intent, for the footer.
    Said { words: String, trouble: bool },
    /// Trouble with an intent, for the footer unless the screen on top shows it in place.
    Trouble { kind: IntentKind, words: String },
}

impl PhoneModel {
    /// An intent's record as the engine tells it: noted, with what it means now. A record of
    /// an earlier run's journal is history, never news; one that says nothing new says nothing.
    pub fn hear_intent(&mut self, record: IntentRecord, now: OffsetDateTime) -> Vec<Heard> {
        let earlier_run = self.intents().from_earlier_run(&record);
        let before = self.note_intent(record.clone(), now);
        // A phone just started does not say "Answered." of yesterday's answer.
        if earlier_run || before.as_ref() == Some(&record.state) {
            return Vec::new();
        }
        let mut heard = Vec::new();
        if let (_, outbox::Next::Submit { agent, kind }) = self.outbox_mut().note(&record, now) {
            heard.push(Heard::Submit { agent, kind });
        }
        let agent = record.agent.clone();
        let done = matches!(
            record.state,
            IntentState::Done { .. } | IntentState::Replayed { .. }
        );
        let reply = match &record.state {
            IntentState::Done { reply } | IntentState::Replayed { reply } => Some(reply),
            _ => None,
        };
        if record.kind.is_dsh() {
            self.hear_bridge_intent(&record, done, &mut heard);
            return heard;
        }
        let followed = self.deny_words_mut().hear(&record);
        match &record.kind {
            IntentKind::Answer { pane, ask_id, .. } if done => {
                let key = AskKey {
                    agent: agent.clone(),
                    pane: pane.clone(),
                    ask_id: ask_id.clone(),
                };
                self.forget_card(&key);
                heard.push(Heard::AnswerTaken { key });
                // As the card and the headless `answer` say it (SPEC Q7), or, for a Deny
                // with words, that they go next (SPEC A21).
                let words = match followed {
                    Followed::Send { .. } => AfterDeny::Going.said(),
                    _ => outcome::said(&record),
                };
                heard.push(Heard::Said {
                    words,
                    trouble: false,
                });
                self.follow_deny(followed, &mut heard);
            }
            IntentKind::Starter { .. } | IntentKind::Reopen { .. } => {
                if let Some(pane) = reply.and_then(|r| r.pane_id.clone()) {
                    heard.push(Heard::PaneNamed { agent, pane });
                }
            }
            // The value a switch shows follows the agent's answer, not ours (docs/ACP.md).
            IntentKind::Rename { .. }
            | IntentKind::Close { .. }
            | IntentKind::Action { .. }
            | IntentKind::Setting { .. }
                if done =>
            {
                heard.push(Heard::Said {
                    words: outcome::said(&record),
                    trouble: false,
                });
            }
            IntentKind::Abort { pane, turn_id } if done => {
                // The stop dropped what the agent held behind the turn: the words are the
                // person's again, back in the box before the draft (docs/ACP.md).
                let taken = self.outbox_mut().take_waiting(&agent, pane, turn_id);
                if self.back_into_box(&agent, pane, &taken) {
                    heard.push(Heard::WordsBack {
                        agent: agent.clone(),
                        pane: pane.clone(),
                    });
                    heard.push(Heard::Said {
                        words: if taken.len() == 1 {
                            "Stopped. The queued message is back in the box.".to_string()
                        } else {
                            format!(
                                "Stopped. The {} queued messages are back in the box.",
                                taken.len()
                            )
                        },
                        trouble: false,
                    });
                }
            }
            _ => self.follow_deny(followed, &mut heard),
        }
        // Answers and pane messages show their trouble where they live (the card, the line
        // by the box); the rest is said unless the screen on top shows it.
        let shown_where_it_lives = matches!(
            record.kind,
            IntentKind::Answer { .. }
                | IntentKind::Send { .. }
                | IntentKind::Abort { .. }
                | IntentKind::Action { .. }
                | IntentKind::Setting { .. }
        );
        if !shown_where_it_lives && !done && !intents::is_in_flight(&record.state) {
            heard.push(Heard::Trouble {
                kind: record.kind.clone(),
                words: format!(
                    "{}: {}",
                    capitalized(record.kind.verb()),
                    outcome::short(&record)
                ),
            });
        }
        heard
    }

    /// The words after a Deny (SPEC A21): sent once the Deny was taken, given back where they
    /// were typed when it was not, and one receipt of both.
    fn follow_deny(&mut self, followed: Followed, heard: &mut Vec<Heard>) {
        match followed {
            Followed::Nothing => {}
            Followed::Send { agent, pane, text } => {
                // They name the turn on screen, as a message typed in the box would (SPEC A16).
                let turn_id = self
                    .agents()
                    .pane(&agent, &pane)
                    .and_then(|p| p.turn().map(|t| t.id.clone()));
                let kind = IntentKind::Send {
                    pane: pane.clone(),
                    turn_id,
                    text,
                };
                self.deny_words_mut().message_made(&agent, kind.clone());
                if let outbox::Next::Submit { agent, kind } =
                    self.outbox_mut().push(&agent, &pane, kind)
                {
                    heard.push(Heard::Submit { agent, kind });
                }
            }
            Followed::GiveBack { key, text } => {
                let quoted = quoted_words(&text);
                let how = match self
                    .card_mut(&key)
                    .and_then(crate::model::card_state::CardState::say_why_mut)
                {
                    // The card is still here (the ask changed, the outcome is unknown): the
                    // words go back under its Deny, before what was typed since.
                    Some(words) => {
                        let typed = words.text();
                        let joined = if typed.is_empty() {
                            text
                        } else {
                            format!("{text}\n{typed}")
                        };
                        *words = crate::model::editor::Editor::from_text(&joined);
                        "they are back on the card"
                    }
                    None => {
                        self.back_into_box(&key.agent, &key.pane, &[text]);
                        heard.push(Heard::WordsBack {
                            agent: key.agent.clone(),
                            pane: key.pane.clone(),
                        });
                        "they are in the pane's box"
                    }
                };
                heard.push(Heard::Said {
                    words: AfterDeny::NotDenied {
                        words: &quoted,
                        how: Some(how),
                    }
                    .said(),
                    trouble: true,
                });
            }
            Followed::Sent => heard.push(Heard::Said {
                words: AfterDeny::Sent.said(),
                trouble: false,
            }),
            Followed::Waits { text } => heard.push(Heard::Said {
                words: AfterDeny::Waits {
                    words: &quoted_words(&text),
                    how: "above the pane's box",
                }
                .said(),
                trouble: true,
            }),
        }
    }

    /// A bridge's intent (SPEC D2, D5): what its reply means to the phone.
    fn hear_bridge_intent(&mut self, record: &IntentRecord, done: bool, heard: &mut Vec<Heard>) {
        let agent = record.agent.clone();
        let reply = match &record.state {
            IntentState::Done { reply } | IntentState::Replayed { reply } => Some(reply),
            _ => None,
        };
        match &record.kind {
            IntentKind::DshClose { task_id } if done => {
                heard.push(Heard::PaneGone {
                    agent: agent.clone(),
                    pane: task_id.clone(),
                });
                heard.push(Heard::Said {
                    words: "Closed the task. Its session stays on the desktop.".into(),
                    trouble: false,
                });
                heard.push(Heard::PollNow { agent });
            }
            // The real bridge takes a cancel during a permission wait (`accepted: true`) and
            // the desktop goes on waiting: say so, the card stays.
            IntentKind::DshCancel { task_id } if done => {
                let waits = self
                    .agents()
                    .pane(&agent, task_id)
                    .map_or(0, |p| p.pane.asks.len());
                if waits > 0 {
                    heard.push(Heard::Said {
                        words: "The bridge took the cancel, but the desktop still waits for an answer: answer it there.".into(),
                        trouble: false,
                    });
                }
            }
            IntentKind::DshCreate { .. } => {
                if let Some(pane) = reply.and_then(|r| r.pane_id.clone()) {
                    heard.push(Heard::PaneNamed { agent, pane });
                }
            }
            IntentKind::DshRegisterWorkspace { path, .. } if done => {
                heard.push(Heard::Said {
                    words: format!("Registered {path}: it shows among the bridge's workspaces."),
                    trouble: false,
                });
                heard.push(Heard::PollNow { agent });
            }
            _ => {}
        }
        // Trouble shows where the person is: the pane's status line or the form's receipt.
        if !done && !intents::is_in_flight(&record.state) {
            heard.push(Heard::Trouble {
                kind: record.kind.clone(),
                words: format!("{}: {}", record.kind.verb(), outcome::short(record)),
            });
        }
    }

    /// The pane a reply named, once the snapshot has it.
    pub fn hear_awaited_pane(&mut self) -> Option<Heard> {
        let (agent, pane) = self.awaited_pane_arrived()?;
        Some(Heard::PaneReady { agent, pane })
    }

    /// The card on screen, once the chat says its ask closed: it goes when this phone's
    /// answer was taken, or when another phone's won, its words then going to the pane's box
    /// (SPEC A4, A7). Nothing while it is open or closed some other way.
    pub fn hear_card_closed(&mut self, key: &AskKey) -> Option<Heard> {
        if self.card(key).is_none_or(|c| c.closed.is_none()) {
            return None;
        }
        match CardStatus::of(self.intents(), key)? {
            CardStatus::Answered { .. } => {
                self.forget_card(key);
                Some(Heard::AnswerTaken { key: key.clone() })
            }
            // The answer that won is named, never in silence.
            CardStatus::Decided(Decider::Phone, won) => {
                let won = won.map_or_else(String::new, |w| format!(": “{w}”"));
                let mut words = format!("Answered from another phone first{won}.");
                let words_back = self.give_back_card_words(key).is_some();
                if words_back {
                    words.push_str(" Yours was not taken. Your words are in the pane's box.");
                }
                self.forget_card(key);
                Some(Heard::AnsweredElsewhere {
                    key: key.clone(),
                    words,
                    words_back,
                })
            }
            _ => None,
        }
    }
}

/// A person's words in a sentence: one line, cleaned and cut (SPEC L1), in quotes.
fn quoted_words(text: &str) -> String {
    format!("“{}”", crate::model::rings::cut(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::intents::test_record as record;
    use crate::wire::{Answer, PostReply};

    fn answer() -> IntentKind {
        IntentKind::Answer {
            pane: "p".into(),
            ask_id: "ask-1".into(),
            revision: 1,
            answer: Answer::default(),
        }
    }

    fn now() -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH
    }

    /// An answer this run sent and the agent took: its card goes and the footer says the
    /// table's sentence (SPEC Q7); the same record again says nothing new.
    #[test]
    fn an_answer_taken_closes_its_card_once() {
        let mut model = PhoneModel::new([("a".to_string(), false)], []);
        model.submitted("a", answer());
        let done = record(
            answer(),
            IntentState::Done {
                reply: PostReply::ok("r-1"),
            },
        );
        let key = AskKey {
            agent: "a".into(),
            pane: "p".into(),
            ask_id: "ask-1".into(),
        };
        assert_eq!(
            model.hear_intent(done.clone(), now()),
            [
                Heard::AnswerTaken { key },
                Heard::Said {
                    words: "Answered.".into(),
                    trouble: false
                }
            ]
        );
        assert_eq!(model.hear_intent(done, now()), []);
    }

    /// SPEC A21: a Deny with words that the agent took says the words go next and hands them
    /// to the pane's outbox; their message's outcome is the one receipt.
    #[test]
    fn a21_a_deny_taken_sends_its_words_and_one_receipt_says_both() {
        let mut model = PhoneModel::new([("a".to_string(), false)], []);
        let key = AskKey {
            agent: "a".into(),
            pane: "p".into(),
            ask_id: "ask-1".into(),
        };
        model.submitted("a", answer());
        model.deny_with_words(&key, "use the cache".into());
        let done = IntentState::Done {
            reply: PostReply::ok("r-1"),
        };
        let heard = model.hear_intent(record(answer(), done.clone()), now());
        let message = IntentKind::Send {
            pane: "p".into(),
            turn_id: None,
            text: "use the cache".into(),
        };
        assert_eq!(
            heard,
            [
                Heard::AnswerTaken { key },
                Heard::Said {
                    words: "Denied; your words go to the pane next.".into(),
                    trouble: false
                },
                Heard::Submit {
                    agent: "a".into(),
                    kind: message.clone()
                },
            ]
        );
        model.submitted("a", message.clone());
        let mut sent = record(message, done);
        sent.request_id = "r-2".into();
        let heard = model.hear_intent(sent, now());
        assert!(
            heard.contains(&Heard::Said {
                words: "Denied, and your words were sent.".into(),
                trouble: false
            }),
            "{heard:?}"
        );
    }

    /// SPEC A21: a Deny not taken gives its words back: onto the card while it is there,
    /// else into the pane's box, and says so.
    #[test]
    fn a21_a_deny_not_taken_gives_its_words_back_where_they_were_typed() {
        let key = AskKey {
            agent: "a".into(),
            pane: "p".into(),
            ask_id: "ask-1".into(),
        };
        let too_late = || record(answer(), IntentState::TooLate);
        // No card: the pane's box.
        let mut model = PhoneModel::new([("a".to_string(), false)], []);
        model.submitted("a", answer());
        model.deny_with_words(&key, "use the cache".into());
        let heard = model.hear_intent(too_late(), now());
        assert!(heard.contains(&Heard::WordsBack {
            agent: "a".into(),
            pane: "p".into()
        }));
        assert!(
            heard
                .iter()
                .any(|h| matches!(h, Heard::Said { words, trouble: true }
                if words.contains("“use the cache”") && words.contains("pane's box"))),
            "{heard:?}"
        );
        assert_eq!(model.box_text("a", "p"), "use the cache");
    }

    /// The journal's record of an earlier run is history: no card goes, nothing is said.
    #[test]
    fn an_earlier_runs_record_is_no_news() {
        let mut model = PhoneModel::new([("a".to_string(), false)], []);
        let old = record(
            answer(),
            IntentState::Done {
                reply: PostReply::ok("r-1"),
            },
        );
        assert_eq!(model.hear_intent(old, now()), []);
    }

    /// A bridge task closed: its pane goes, the footer says the session stays, and the bridge
    /// is asked for its news now (SPEC D2).
    #[test]
    fn a_closed_task_takes_its_pane_away() {
        let mut model = PhoneModel::new([("dsh".to_string(), false)], ["dsh".to_string()]);
        let kind = IntentKind::DshClose {
            task_id: "t1".into(),
        };
        model.submitted("dsh", kind.clone());
        let mut closed = record(
            kind,
            IntentState::Done {
                reply: PostReply::ok("r-1"),
            },
        );
        closed.agent = "dsh".into();
        let heard = model.hear_intent(closed, now());
        assert_eq!(
            heard.first(),
            Some(&Heard::PaneGone {
                agent: "dsh".into(),
                pane: "t1".into()
            })
        );
        assert_eq!(
            heard.last(),
            Some(&Heard::PollNow {
                agent: "dsh".into()
            })
        );
    }

    /// Trouble with a rename is said unless the screen on top shows it; an answer's shows on
    /// its card, so it is no footer news.
    #[test]
    fn trouble_is_news_where_it_has_no_place_of_its_own() {
        let mut model = PhoneModel::new([("a".to_string(), false)], []);
        let rename = IntentKind::Rename {
            target: "pane".into(),
            id: "p".into(),
            title: "新".into(),
        };
        model.submitted("a", rename.clone());
        let refused = IntentState::Refused {
            status: 409,
            code: "conflict".into(),
            message: None,
        };
        let heard = model.hear_intent(record(rename, refused.clone()), now());
        assert!(
            matches!(heard.as_slice(), [Heard::Trouble { words, .. }] if words.starts_with("Rename")),
            "{heard:?}"
        );
        model.submitted("a", answer());
        let mut answer_refused = record(answer(), refused);
        answer_refused.request_id = "r-2".into();
        assert_eq!(model.hear_intent(answer_refused, now()), []);
    }
}
