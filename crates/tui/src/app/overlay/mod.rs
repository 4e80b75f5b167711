//! What floats over a screen: the help of its keys, a yes/no question before something that
//! cannot be taken back, or a one-line prompt such as a new title; and short messages.

pub(crate) mod help;
pub(crate) mod keys;
pub(crate) mod kind_picker;
pub(crate) mod rings_picker;
pub(crate) mod setting_picker;

use crossterm::event::KeyEvent;
use time::OffsetDateTime;

use crate::app::keymap::{Action, Context};
use crate::app::phone::Phone;
use crate::app::{Command, typing};
use crate::engine::IntentKind;
use crate::model::arming::Arming;
use crate::model::editor::Editor;
use crate::model::inbox::AskKey;
use crate::model::outcome::capitalized;
use crate::wire::Ask;

/// What happens once the person says yes (or types the prompt's answer).
#[derive(Debug, Clone, PartialEq)]
pub enum Deferred {
    Quit,
    Submit {
        agent: String,
        kind: IntentKind,
    },
    /// The prompt's text is a time of day (UTC) the rings are muted until.
    MuteUntil,
    /// The prompt's text is the new title (SPEC W5: rename a workspace or a tab).
    Rename {
        agent: String,
        target: String,
        id: String,
    },
}

#[derive(Debug, Clone)]
pub enum Overlay {
    /// The keys of `context`, generated from the keymap. Over a picker, the picker waits
    /// `under` it and comes back when the help closes, so `?` works on what floats too.
    Help {
        context: Context,
        scroll: usize,
        under: Option<Box<Overlay>>,
    },
    /// A yes/no question. It takes a yes only once a frame has shown it (`shown`), and closes
    /// by itself once what it is about is over (`about`): a key must never confirm a question
    /// the person cannot see, nor one about a turn that has ended.
    Confirm {
        question: String,
        then: Deferred,
        shown: bool,
        about: About,
        /// The reading time of a question before the agent may act without asking, the one
        /// allow-always has (docs/KEYS.md, "Keys that act on an agent"); None for the others.
        arming: Option<Arming>,
    },
    Prompt {
        title: String,
        editor: Editor,
        then: Deferred,
    },
    /// The second, explicit yes that allow-always needs (docs/ASKS.md, "Allow always").
    AllowAlways(Box<AllowAlwaysQuestion>),
    /// The choices of a pane's settings (its agent's mode and options), one setting at a time
    /// (docs/WIRE.md § 5.13).
    Setting(SettingPicker),
    /// The rings: the mute and how each event rings; `selected` is the lit row of
    /// `rings_picker::ROWS`.
    Rings { selected: usize },
    /// The kind of the next message to a DSH bridge task, remembered per pane (SPEC D3).
    DshKind {
        agent: String,
        pane: String,
        /// The highlighted row of `AppendKind::ALL`.
        selected: usize,
    },
}

/// What a yes/no question is about, so it can close when that is over.
#[derive(Debug, Clone, PartialEq)]
pub enum About {
    /// Stands until answered (quit, close).
    Standing,
    /// Stands while this turn of a pane of a durable agent runs.
    Turn {
        agent: String,
        pane: String,
        turn_id: String,
    },
    /// Stands while a DSH bridge task runs a turn.
    DshTurn { agent: String, task: String },
    /// Stands while the pane still offers `value` for its setting and is not in it already:
    /// a yes to a mode the agent took away, or one it is in, would switch nothing meant.
    Setting {
        agent: String,
        pane: String,
        setting: String,
        value: String,
    },
}

/// The picker of a pane's settings: which setting shows, and which of its choices is lit.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingPicker {
    pub(crate) agent: String,
    pub(crate) pane: String,
    /// The setting shown, by its place in the pane's settings.
    pub(crate) setting: usize,
    /// The lit choice, by its place in that setting's choices.
    pub(crate) selected: usize,
}

/// "Allow always?" over a permission card: it names the tool and what runs, takes only its own
/// key (Enter does not confirm it, so a double Enter never allows always), and no key answers it
/// within the reading time after it appears.
#[derive(Debug, Clone)]
pub struct AllowAlwaysQuestion {
    pub(crate) key: AskKey,
    /// The ask as it was when the question appeared: a change since drops the question.
    pub(crate) ask: Ask,
    /// The allow-always option that a yes sends.
    pub(crate) option_id: String,
    pub(crate) arming: Arming,
    /// Why the last key did nothing.
    pub(crate) notice: Option<String>,
}

impl Overlay {
    /// A yes/no question that stands until answered.
    pub(crate) fn confirm(question: String, then: Deferred) -> Self {
        Self::confirm_about(question, then, About::Standing)
    }

    /// A yes/no question that closes once `about` is over.
    pub(crate) fn confirm_about(question: String, then: Deferred, about: About) -> Self {
        Overlay::Confirm {
            question,
            then,
            shown: false,
            about,
            arming: None,
        }
    }

    /// The question before a mode that lets the agent act without asking: no yes within the
    /// reading time after it appears, as on the allow-always question (docs/ASKS.md).
    pub(crate) fn confirm_unattended(
        question: String,
        then: Deferred,
        about: About,
        now: OffsetDateTime,
    ) -> Self {
        Overlay::Confirm {
            question,
            then,
            shown: false,
            about,
            arming: Some(Arming::start(crate::model::arming::Why::Asked, now)),
        }
    }

    /// Where keys go while this floats over the screen.
    pub(crate) fn keys(&self) -> Context {
        match self {
            Overlay::Help { .. } => keys::HELP,
            // A mode that acts without asking takes only its own key, as allow-always does:
            // Enter never says it, so the Enter that chose it in the picker cannot.
            Overlay::Confirm {
                about: About::Setting { .. },
                ..
            } => keys::CONFIRM_SETTING,
            Overlay::Confirm { .. } => keys::CONFIRM,
            Overlay::Setting(_) => keys::SETTING_PICKER,
            Overlay::AllowAlways(_) => keys::CONFIRM_ALWAYS,
            Overlay::Prompt { .. } => keys::PROMPT,
            Overlay::DshKind { .. } => keys::KIND_PICKER,
            Overlay::Rings { .. } => keys::RINGS,
        }
    }
}

/// The keys of what floats: the help scrolls and closes, a question is answered yes or no, a
/// prompt takes its words.
impl Phone {
    /// A key while something floats over the screen: only what floats takes it, never the
    /// screen below (docs/KEYS.md, "What floats").
    pub(crate) fn overlay_key(&mut self, action: Option<Action>, key: &KeyEvent) -> Vec<Command> {
        // The help of a picker lists the picker's keys; the picker waits under it.
        if action == Some(Action::Help)
            && matches!(
                self.overlay,
                Some(Overlay::Setting(_) | Overlay::DshKind { .. } | Overlay::Rings { .. })
            )
        {
            let under = self.overlay.take().map(Box::new);
            self.overlay = Some(Overlay::Help {
                context: under.as_ref().map_or(keys::HELP, |o| o.keys()),
                scroll: 0,
                under,
            });
            return Vec::new();
        }
        match &self.overlay {
            // The app scrolls the help: how far depends on the screen below it.
            Some(Overlay::Help { .. }) => Vec::new(),
            Some(Overlay::Confirm { .. }) => self.confirm_key(action),
            // The card's question: the router hands its keys to the card room
            // (`screens::card::allow_always_key`).
            Some(Overlay::AllowAlways(_)) => Vec::new(),
            Some(Overlay::Prompt { .. }) => self.prompt_key(action, key),
            Some(Overlay::DshKind { .. }) => self.kind_picker_key(action),
            Some(Overlay::Setting(_)) => self.setting_picker_key(action),
            Some(Overlay::Rings { .. }) => self.rings_key(action),
            None => Vec::new(),
        }
    }

    /// Whether the help of what floats lists `action`: a picker's numbers go only as far as
    /// its choices.
    pub(crate) fn overlay_lists(&self, overlay: &Overlay, action: Action) -> bool {
        let Action::Pick(n) = action else {
            return true;
        };
        let choices = match overlay {
            Overlay::Setting(picker) => self
                .pane_settings(&picker.agent, &picker.pane)
                .get(picker.setting)
                .map_or(0, |s| s.choices.len()),
            Overlay::DshKind { .. } => crate::dsh_wire::AppendKind::ALL.len(),
            _ => return true,
        };
        usize::from(n) <= choices
    }

    /// A frame has shown what floats: a question shown can now be answered.
    pub(crate) fn overlay_drawn(&mut self) {
        if let Some(Overlay::Confirm { shown, .. }) = &mut self.overlay {
            *shown = true;
        }
    }

    /// Closes a question whose turn has ended, saying so: a yes to "Stop turn 3?" once turn
    /// 3 is over would stop nothing the person meant (SPEC A16).
    pub(crate) fn settle_confirm(&mut self) {
        // The settings picker, the same way: it never floats over a setting that is gone.
        if let Some(Overlay::Setting(picker)) = &self.overlay
            && let Some(why) = self.setting_picker_over(picker)
        {
            self.overlay = None;
            self.show_toast(why, false);
            return;
        }
        let Some(Overlay::Confirm { about, .. }) = &self.overlay else {
            return;
        };
        let ended = match about {
            About::Standing => None,
            About::Turn {
                agent,
                pane,
                turn_id,
            } => {
                let running = self
                    .agents()
                    .pane(agent, pane)
                    .and_then(|p| p.turn())
                    .is_some_and(|t| {
                        t.id == *turn_id && t.state == crate::wire::TurnState::Running
                    });
                (!running).then(|| {
                    format!(
                        "{} ended before you said yes; nothing was stopped.",
                        capitalized(&crate::app::names::turn_name(turn_id))
                    )
                })
            }
            About::DshTurn { agent, task } => (!self.dsh_turn_runs(agent, task))
                .then(|| "The turn ended before you said yes; nothing was cancelled.".to_string()),
            About::Setting {
                agent,
                pane,
                setting,
                value,
            } => self.setting_question_over(agent, pane, setting, value),
        };
        if let Some(sentence) = ended {
            self.overlay = None;
            self.show_toast(sentence, false);
        }
    }

    pub(crate) fn confirm_key(&mut self, action: Option<Action>) -> Vec<Command> {
        match action {
            // A yes that came before any frame showed the question (keys bunched over ssh, a
            // key already on its way) answers nothing the person has read.
            // `ConfirmAlways` is the yes of a question whose keys are `CONFIRM_SETTING`.
            Some(Action::Confirm | Action::ConfirmAlways)
                if matches!(self.overlay, Some(Overlay::Confirm { shown: false, .. })) =>
            {
                self.show_toast(crate::model::arming::Why::Asked.sentence(), false);
                Vec::new()
            }
            Some(Action::Confirm | Action::ConfirmAlways)
                if let Some(Overlay::Confirm {
                    arming: Some(arming),
                    ..
                }) = &self.overlay
                    && let Some(why) = arming.refusal(self.now()) =>
            {
                self.show_toast(why, false);
                Vec::new()
            }
            Some(Action::Confirm | Action::ConfirmAlways) => match self.overlay.take() {
                Some(Overlay::Confirm { then, .. }) => self.run_deferred(then, None),
                other => {
                    self.overlay = other;
                    Vec::new()
                }
            },
            Some(Action::Cancel) => {
                self.overlay = None;
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    pub(crate) fn prompt_key(&mut self, action: Option<Action>, key: &KeyEvent) -> Vec<Command> {
        match action {
            Some(Action::Confirm) => match self.overlay.take() {
                Some(Overlay::Prompt {
                    title,
                    editor,
                    then,
                }) => {
                    let text = editor.text().trim().to_string();
                    if text.is_empty() {
                        let why = match then {
                            Deferred::MuteUntil => "Type a time such as 14:30.",
                            _ => "A title cannot be empty.",
                        };
                        self.show_toast(why, true);
                        self.overlay = Some(Overlay::Prompt {
                            title,
                            editor,
                            then,
                        });
                        return Vec::new();
                    }
                    self.run_deferred(then, Some(text))
                }
                other => {
                    self.overlay = other;
                    Vec::new()
                }
            },
            Some(Action::Cancel) => {
                self.overlay = None;
                Vec::new()
            }
            _ => {
                if let Some(Overlay::Prompt { editor, .. }) = &mut self.overlay {
                    typing::edit(editor, key, typing::Shape::OneLine);
                }
                Vec::new()
            }
        }
    }
}
