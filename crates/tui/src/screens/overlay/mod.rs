//! The drawing of what floats over a screen (the help, a question, a prompt). Its state and
//! keys are the phone's: `app::overlay`.

pub(crate) mod draw;
pub(crate) mod draw_rings;
