//! Mouse capture, on or off (the config's `mouse`, and a key while the phone runs): with it
//! off, the terminal keeps the mouse, so its own selection and copy work. Everything the mouse
//! does in the phone (the wheel scrolls, a click picks a row) the keys do too.

use super::Command;
use super::keymap::{Action, Context};
use super::phone::Phone;

impl Phone {
    /// Takes the mouse, or leaves it to the terminal, and says on screen what changed.
    pub(crate) fn toggle_mouse(&mut self, context: Context) -> Vec<Command> {
        let terminal = self.view.terminal_mut();
        terminal.mouse = !terminal.mouse;
        let key = self
            .keymap()
            .key_label(context, Action::Mouse)
            .unwrap_or_else(|| "the mouse key".into());
        let text = if self.view.terminal().mouse {
            format!(
                "Mouse on: wheel and clicks work here; press {key} for your terminal's selection"
            )
        } else {
            format!("Mouse off: your terminal's selection works; press {key} to turn it back on")
        };
        self.show_toast(text, false);
        vec![Command::Mouse(self.view.terminal().mouse)]
    }
}
