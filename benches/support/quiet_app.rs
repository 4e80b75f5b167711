//! The phone a bench drives: no bell or desktop notice (a bench rings nothing), the dark
//! theme, the clock now, at `size`.

use time::OffsetDateTime;

use collie_phone::app::AppSetup;
use collie_phone::app::notify::NotifyStyle;
use collie_phone::app::settings::Settings;
use collie_phone::look::theme::Theme;
use collie_phone::shell::App;

pub fn quiet_app(agents: Vec<(String, bool)>, size: (u16, u16)) -> App {
    App::new(AppSetup {
        agents,
        settings: Settings {
            notify: NotifyStyle::Off,
            ..Settings::default()
        },
        bridges: Vec::new(),
        theme: Theme::builtin("dark").expect("the dark theme"),
        now: OffsetDateTime::now_utc(),
        size,
    })
}
