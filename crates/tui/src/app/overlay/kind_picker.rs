//! The kind picker of a bridge's pane (SPEC D5, docs/KEYS.md): which kind the next message of
//! the pane is; it floats over the pane, so its keys are the phone's (docs/ARCHITECTURE.md).

use crate::app::Command;
use crate::app::keymap::Action;
use crate::app::overlay::Overlay;
use crate::app::phone::Phone;
use crate::dsh_wire::AppendKind;
use crate::model::dsh_state::kind_words;

impl Phone {
    /// The kind picker's keys.
    pub(crate) fn kind_picker_key(&mut self, action: Option<Action>) -> Vec<Command> {
        let Some(Overlay::DshKind {
            agent,
            pane,
            selected,
        }) = self.overlay.clone()
        else {
            return Vec::new();
        };
        let last = AppendKind::ALL.len() - 1;
        let chosen = match action {
            Some(Action::Up) => {
                let selected = selected.checked_sub(1).unwrap_or(last);
                self.overlay = Some(Overlay::DshKind {
                    agent,
                    pane,
                    selected,
                });
                return Vec::new();
            }
            Some(Action::Down) => {
                let selected = if selected >= last { 0 } else { selected + 1 };
                self.overlay = Some(Overlay::DshKind {
                    agent,
                    pane,
                    selected,
                });
                return Vec::new();
            }
            // A number lights its kind and Enter chooses it, as on a card (docs/KEYS.md).
            Some(Action::Pick(n)) if (1..=last + 1).contains(&usize::from(n)) => {
                // The key is never silent: lit already, it says what chooses it.
                if selected == usize::from(n) - 1 {
                    let enter = self
                        .keymap()
                        .key_label(super::keys::KIND_PICKER, Action::Confirm)
                        .unwrap_or_else(|| "Enter".into());
                    self.show_toast(
                        format!(
                            "Kind {} is lit: {enter} chooses it.",
                            AppendKind::ALL[selected]
                        ),
                        false,
                    );
                }
                self.overlay = Some(Overlay::DshKind {
                    agent,
                    pane,
                    selected: usize::from(n) - 1,
                });
                return Vec::new();
            }
            Some(Action::Confirm) => selected,
            Some(Action::Cancel) => {
                self.overlay = None;
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        self.overlay = None;
        let kind = AppendKind::ALL[chosen.min(last)].clone();
        if let Some(view) = self.model.dsh_view_mut(&agent) {
            view.prefs.entry(pane).or_default().kind = kind.clone();
        }
        self.show_toast(
            format!("Kind {kind}: the next message is {}.", kind_words(&kind)),
            false,
        );
        Vec::new()
    }
}
