//! The frame's root: draws the whole phone, the title bar, the room on top (through its
//! `Drawn`, in its `draw.rs`), the footer and what floats. It names the rooms, so it sits in the
//! shell, above them. Reads only.

use ratatui::Frame;

use super::App;
use super::chrome;
use crate::app::geometry;
use crate::app::overlay::Overlay;
use crate::screens::{self, Screen};
use crate::ui::Drawn;

/// Draws the whole phone from the app's state. Reads only.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let theme = app.theme();
    let area = frame.area();
    if geometry::is_too_small(area.width, area.height) {
        chrome::too_small(frame, area, theme);
        return;
    }
    let parts = geometry::frame(area.width, area.height);
    let top = drawn(app.nav().top());
    chrome::title_bar(frame, parts.title, app, top, theme);
    top.draw(frame, app, theme);
    chrome::footer(frame, parts.footer, app, top, theme);
    let help_lines = match &app.overlay {
        Some(Overlay::Help { context, .. }) => app.help_lines(*context),
        _ => Default::default(),
    };
    screens::overlay::draw::draw(frame, app, &help_lines, theme);
}

macro_rules! drawn {
    ($($variant:ident($state:ty),)*) => {
        /// The drawing half of the room of `screen`.
        pub(crate) fn drawn(screen: &Screen) -> &dyn Drawn {
            match screen {
                $(Screen::$variant(state) => state,)*
            }
        }
    };
}
screens::for_each_room!(drawn);
