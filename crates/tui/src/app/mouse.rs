//! Mouse capture, on or off (the config's `mouse`, and a key while the phone runs): with it
//! off, the terminal keeps the mouse, so its own selection and copy work. Everything the mouse
//! does in the phone (the wheel scrolls, a click picks a row) the keys do too.

use super::Command;
use super::keymap::{Action, Context};
use super::phone::Phone;

impl Phone {
    /// Takes the mouse, or leaves it to the terminal, and says on screen what changed.
    pub(crate) fn toggle_mouse(&mut self, context: Context) -> Vec<Command> {
        self.mouse = !self.mouse;
        let key = self
            .keymap
            .key_label(context, Action::Mouse)
            .unwrap_or_else(|| "the mouse key".into());
        let text = if self.mouse {
            format!(
                "Mouse on: wheel and clicks work here; press {key} for your terminal's selection"
            )
        } else {
            format!("Mouse off: your terminal's selection works; press {key} to turn it back on")
        };
        self.show_toast(text, false);
        vec![Command::Mouse(self.mouse)]
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::*;
    use crate::app::settings::Settings;
    use crate::app::{App, AppSetup, Message};
    use crate::look::theme::Theme;

    fn app() -> App {
        App::new(AppSetup {
            agents: vec![("demo".into(), false)],
            settings: Settings::default(),
            bridges: Vec::new(),
            theme: Theme::builtin("dark").expect("built in"),
            now: time::OffsetDateTime::UNIX_EPOCH,
            size: (80, 24),
        })
    }

    fn press_m(app: &mut App) -> Vec<bool> {
        let m = KeyEvent::new(KeyCode::Char('M'), KeyModifiers::SHIFT);
        app.update(Message::Key(m))
            .into_iter()
            .filter_map(|command| match command {
                Command::Mouse(captured) => Some(captured),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn m_leaves_the_mouse_to_the_terminal_and_takes_it_back_saying_so() {
        let mut app = app();
        assert!(app.mouse);
        assert_eq!(press_m(&mut app), [false]);
        assert!(!app.mouse);
        assert_eq!(
            app.toast.as_ref().map(|t| t.text.as_str()),
            Some("Mouse off: your terminal's selection works; press M to turn it back on")
        );
        assert_eq!(press_m(&mut app), [true]);
        assert!(app.mouse);
        assert!(
            app.toast.as_ref().is_some_and(|t| t.text
                == "Mouse on: wheel and clicks work here; press M for your terminal's selection"),
            "{:?}",
            app.toast
        );
    }

    #[test]
    fn a_phone_started_without_the_mouse_takes_it_on_the_first_m() {
        let mut app = app();
        app.phone_mut().mouse = false;
        assert!(!app.mouse);
        assert_eq!(press_m(&mut app), [true]);
    }
}
