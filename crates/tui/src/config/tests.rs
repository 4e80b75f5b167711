//! Every shape of refusal, and the keys that work.

use std::path::Path;

use super::*;
use crate::app::keymap::{Action, Chord};
use crate::app::notify::NotifyStyle;
use crate::look::theme::Background;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(Path::new("config.toml"), text)
}

fn refusal(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn reads_theme_bell_keys_agents_and_bridges() {
    let config = parse(
        r#"
        theme = "light"
        bell = false
        [keys]
        quit = "ctrl-q"
        retry = ["R", "ctrl-r"]
        [agents.laptop]
        socket = "/run/user/1000/a.sock"
        [agents.cloud]
        url = "https://agent.example"
        token-file = "/home/me/cloud.token"
        ca-cert = "/home/me/ca.pem"
        [dsh.desk]
        token-file = "/home/me/dsh.token"
        "#,
    )
    .expect("parses");
    assert_eq!(
        config.theme.as_ref().map(|t| t.name.as_str()),
        Some("light")
    );
    assert_eq!(config.settings().notify, NotifyStyle::Off);
    let ctrl_q = Chord::parse("ctrl-q").expect("a key");
    assert_eq!(
        config
            .settings()
            .keymap
            .keys_for(crate::screens::home::keys::HOME, Action::Quit),
        vec![ctrl_q]
    );
    assert_eq!(config.agents.len(), 2);
    assert_eq!(
        config.agents["cloud"].ca_cert.as_deref(),
        Some(Path::new("/home/me/ca.pem"))
    );
    assert_eq!(
        config.dsh["desk"].url,
        crate::engine::dsh::DEFAULT_BRIDGE_URL
    );
}

#[test]
fn an_empty_or_missing_file_is_the_defaults() {
    let config = parse("").expect("parses");
    assert_eq!(config.settings().notify, NotifyStyle::Bell);
    assert!(config.theme(|| Background::Dark).is_none());
    assert!(config.agents.is_empty() && config.dsh.is_empty());
    let dir = tempfile::tempdir().expect("dir");
    let missing = Config::read(&dir.path().join("config.toml")).expect("defaults");
    assert!(missing.agents.is_empty());
}

#[test]
fn a_file_that_cannot_be_read_is_said_so() {
    let dir = tempfile::tempdir().expect("dir");
    let error = Config::read(dir.path()).expect_err("a folder is no file");
    assert!(
        error
            .to_string()
            .starts_with(&format!("cannot read {}: ", dir.path().display())),
        "{error}"
    );
}

#[test]
fn mouse_is_taken_unless_the_file_says_false() {
    assert!(parse("").expect("parses").settings().mouse);
    assert!(parse("mouse = true").expect("parses").settings().mouse);
    assert!(!parse("mouse = false").expect("parses").settings().mouse);
    assert_eq!(
        refusal("mouse = \"off\""),
        r#"config.toml:1:9: mouse = "off" is not a valid value: invalid type: string "off", expected a boolean"#
    );
    assert_eq!(
        refusal("mose = false"),
        r#"config.toml:1:1: unknown key "mose"; did you mean "mouse"?"#
    );
}

#[test]
fn notify_picks_the_way_and_bell_false_still_means_off() {
    let style = |text: &str| parse(text).expect("parses").settings().notify;
    assert_eq!(style(r#"notify = "osc9""#), NotifyStyle::Osc9);
    assert_eq!(style(r#"notify = "osc777""#), NotifyStyle::Osc777);
    assert_eq!(style(r#"notify = "off""#), NotifyStyle::Off);
    assert_eq!(style(r#"notify = "bell""#), NotifyStyle::Bell);
    assert_eq!(style("bell = false"), NotifyStyle::Off);
    assert_eq!(style("bell = false\nnotify = \"osc9\""), NotifyStyle::Osc9);
}

#[test]
fn t10_a_pin_in_an_agent_entry_is_read_and_a_bad_one_is_refused_at_its_line() {
    let hex = "0a".repeat(32);
    let config = parse(&format!(
        "[agents.cloud]\nurl = \"https://agent.example\"\npin = \"SHA256:{hex}\"\n"
    ))
    .expect("parses");
    let pin = config.agents["cloud"].pin.expect("a pin");
    assert_eq!(pin.to_string(), format!("sha256:{}", ["0A"; 32].join(":")));
    let refused = refusal("[agents.cloud]\nurl = \"https://agent.example\"\npin = \"ab:cd\"\n");
    assert!(refused.starts_with("config.toml:3:7: "), "{refused}");
    assert!(refused.contains("is not a pin"), "{refused}");
}

#[test]
fn every_key_the_suggestions_know_is_one_the_file_takes() {
    let mut text: Vec<String> = file::TOP_KEYS
        .iter()
        .filter(|key| !["keys", "agents", "dsh", "acp"].contains(key))
        .map(|key| match *key {
            "bell" => "bell = true".to_string(),
            "notify" => "notify = \"off\"".to_string(),
            "mouse" => "mouse = false".to_string(),
            other => format!("{other} = \"dark\""),
        })
        .collect();
    text.push("[keys]".into());
    text.extend(Action::names().iter().map(|name| format!("{name} = []")));
    text.push("[agents.a]".into());
    text.extend(AgentEntry::KEYS.iter().map(|key| match *key {
        "pin" => format!("pin = \"sha256:{}\"", "ab".repeat(32)),
        // A socket path has a shape of its own to keep (SPEC S1).
        "socket" => "socket = \"/run/a.sock\"".to_string(),
        other => format!("{other} = \"x\""),
    }));
    text.push("[dsh.d]".into());
    text.extend(DshEntry::KEYS.iter().map(|key| format!("{key} = \"x\"")));
    text.push("[acp.c]".into());
    text.extend(AcpEntry::KEYS.iter().map(|key| match *key {
        "mode" => "mode = \"default\"".to_string(),
        "protocol" => "protocol = 2".to_string(),
        other => format!("{other} = [\"x\"]"),
    }));
    parse(&text.join("\n")).expect("every known key is taken");
}

#[test]
fn an_unknown_top_level_key_names_the_line_and_the_nearest_key() {
    assert_eq!(
        refusal("bell = true\nthme = \"light\"\n"),
        r#"config.toml:2:1: unknown key "thme"; did you mean "theme"?"#
    );
    assert_eq!(
        refusal("[agent.laptop]\nsocket = \"/tmp/a.sock\"\n"),
        r#"config.toml:1:2: unknown key "agent"; did you mean "agents"?"#
    );
}

#[test]
fn an_unknown_key_with_no_near_one_lists_the_known_keys() {
    assert_eq!(
        refusal("colour = \"red\""),
        r#"config.toml:1:1: unknown key "colour"; the known keys are: theme, bell, notify, mouse, keys, agents, dsh, acp"#
    );
}

#[test]
fn unknown_keys_are_refused_in_agents_bridges_and_keys() {
    assert_eq!(
        refusal("[agents.laptop]\nsocket = \"/tmp/a.sock\"\ntoken_file = \"t\"\n"),
        r#"config.toml:3:1: unknown key "token_file" in [agents.laptop]; did you mean "token-file"?"#
    );
    assert_eq!(
        refusal("agents.laptop.sockt = \"/tmp/a.sock\"\n"),
        r#"config.toml:1:15: unknown key "sockt" in [agents.laptop]; did you mean "socket"?"#
    );
    assert_eq!(
        refusal("[dsh.desk]\nulr = \"default\"\n"),
        r#"config.toml:2:1: unknown key "ulr" in [dsh.desk]; did you mean "url"?"#
    );
    assert_eq!(
        refusal("[dsh.desk]\nport = 1\n"),
        r#"config.toml:2:1: unknown key "port" in [dsh.desk]; the known keys are: url, token-file"#
    );
    assert_eq!(
        refusal("[keys]\nquit = \"q\"\nquitt = \"ctrl-q\"\n"),
        r#"config.toml:3:1: unknown key "quitt" in [keys]; did you mean "quit"?"#
    );
}

#[test]
fn a_bad_value_is_named_a_value_error() {
    assert_eq!(
        refusal("theme = \"dark\"\nnotify = \"loud\"\n"),
        r#"config.toml:2:10: notify = "loud" is not a valid value; use one of: bell, osc9, osc777, off"#
    );
    assert_eq!(
        refusal("bell = \"yes\""),
        r#"config.toml:1:8: bell = "yes" is not a valid value: invalid type: string "yes", expected a boolean"#
    );
    assert_eq!(
        refusal("[keys]\nquit = [\"q\", \"ctrl-\"]\n"),
        r#"config.toml:2:8: quit = ["q", "ctrl-"] in [keys] is not a valid value: "ctrl-" is not a key I know"#
    );
    assert_eq!(
        refusal("[agents.laptop]\nsocket = 3\n"),
        r#"config.toml:2:10: socket = 3 in [agents.laptop] is not a valid value: invalid type: integer `3`, expected path string"#
    );
    assert_eq!(
        refusal("[agents]\nlaptop = \"/tmp/a.sock\"\n"),
        r#"config.toml:2:10: laptop = "/tmp/a.sock" in [agents] is not a valid value: invalid type: string "/tmp/a.sock", expected a table with socket, ssh, or url with token-file and ca-cert or pin"#
    );
}

#[test]
fn a_theme_that_is_neither_built_in_nor_a_file_lists_the_themes() {
    let config = parse("bell = true\ntheme = \"neon\"\n").expect("parses");
    let error = config
        .theme(|| Background::Dark)
        .expect("the file names a theme")
        .expect_err("no such theme");
    assert_eq!(
        error.to_string(),
        r#"config.toml:2:9: theme = "neon" is not a valid value; use one of: auto, dark, light, high-contrast, the path of a theme file"#
    );
    let light = parse("theme = \"light\"").expect("parses");
    assert_eq!(
        light
            .theme(|| Background::Dark)
            .expect("named")
            .expect("loads")
            .name,
        "light"
    );
    let auto = parse("theme = \"auto\"").expect("parses");
    assert_eq!(
        auto.theme(|| Background::Light)
            .expect("named")
            .expect("loads")
            .name,
        "light"
    );
}

#[test]
fn a_syntax_error_is_still_not_valid_toml_with_its_line() {
    assert_eq!(
        refusal("bell = true\ntheme = \n"),
        "config.toml:2:9: not valid TOML: string values must be quoted, expected literal string"
    );
}

#[test]
fn every_refusal_of_a_file_is_told_in_one_run_in_file_order() {
    let said = refusal("thme = \"light\"\nbell = 3\n[agents.laptop]\nsockt = \"/run/a.sock\"\n");
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 4, "{said}");
    assert!(
        lines[0].starts_with("config.toml:1:1: unknown key \"thme\"; did you mean \"theme\"?"),
        "{said}"
    );
    assert!(
        lines[1].starts_with("config.toml:2:8: bell = 3 is not a valid value"),
        "{said}"
    );
    assert!(
        lines[2].starts_with("config.toml:4:1: unknown key \"sockt\" in [agents.laptop]"),
        "{said}"
    );
    assert_eq!(lines[3], "(3 errors in the file)");
}

#[test]
fn one_refusal_is_told_alone() {
    let said = refusal("bell = 3\n");
    assert!(!said.contains("errors in the file"), "{said}");
}

#[test]
fn a_key_given_to_two_actions_in_one_place_is_refused_naming_both() {
    // `j` moves down on Home: quitting on it would take the move away without a word.
    assert_eq!(
        refusal("[keys]\nquit = \"j\"\n"),
        r#"config.toml:2:8: quit = "j" in [keys] is not a valid value: j already does down in "Home", and one key does one thing there; give quit another key, or give down others (down = "…")"#
    );
    // Two overrides with the same key: the later line is refused, naming the earlier action.
    assert_eq!(
        refusal("[keys]\nretry = \"ctrl-q\"\nquit = [\"q\", \"ctrl-q\"]\n"),
        r#"config.toml:3:8: quit = ["q", "ctrl-q"] in [keys] is not a valid value: Ctrl-Q already does retry in "Pane", and one key does one thing there; give quit another key, or give retry others (retry = "…")"#
    );
    // Moving the other action off the key first is no clash.
    let config = parse("[keys]\nquit = \"j\"\ndown = \"z\"\n").expect("parses");
    let keymap = &config.settings().keymap;
    assert_eq!(
        keymap.keys_for(crate::screens::home::keys::HOME, Action::Quit),
        vec![Chord::ch('j')]
    );
    assert_eq!(
        keymap.keys_for(crate::screens::home::keys::HOME, Action::Down),
        vec![Chord::ch('z')]
    );
}

#[test]
fn ctrl_c_is_always_the_way_out_whatever_the_keys_say() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let config = parse("[keys]\nquit = \"ctrl-q\"\ncancel = \"x\"\n").expect("parses");
    let keymap = &config.settings().keymap;
    for context in [
        crate::screens::home::keys::HOME,
        crate::screens::pane::keys::CHAT,
        crate::screens::pane::keys::INPUT,
    ] {
        assert_eq!(
            keymap.action(context, &ctrl_c),
            Some(Action::Quit),
            "{context:?}"
        );
    }
    // In a yes/no question Ctrl-C says no, as it did before the file moved `cancel`.
    assert_eq!(
        keymap.action(crate::app::overlay::keys::CONFIRM, &ctrl_c),
        Some(Action::Cancel)
    );
    // The help still lists it.
    assert!(
        keymap
            .help(crate::screens::home::keys::HOME)
            .iter()
            .any(|(keys, what)| keys == "Ctrl-Q Ctrl-C" && what == "Quit collie-phone")
    );
    assert_eq!(
        refusal("[keys]\nhelp = [\"?\", \"ctrl-c\"]\n"),
        r#"config.toml:2:8: help = ["?", "ctrl-c"] in [keys] is not a valid value: Ctrl-C always does quit in "Home", whatever the file says, so a person can always get out; give help another key"#
    );
}

#[test]
fn a_letter_is_not_taken_from_a_box_where_it_is_typed() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    // The README's own example: `q` quits where letters are commands, and is typed in the box.
    let config = parse("[keys]\nquit = [\"q\", \"ctrl-q\"]\n").expect("parses");
    let keymap = &config.settings().keymap;
    let q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
    assert_eq!(
        keymap.action(crate::screens::home::keys::HOME, &q),
        Some(Action::Quit)
    );
    assert_eq!(keymap.action(crate::screens::pane::keys::INPUT, &q), None);
    assert_eq!(
        keymap.keys_for(crate::screens::pane::keys::INPUT, Action::Quit),
        vec![Chord::ctrl('q')]
    );
    // An action given only letters keeps its built-in chord where letters are typed.
    let config = parse("[keys]\nabort = \"X\"\n").expect("parses");
    assert_eq!(
        config
            .settings()
            .keymap
            .keys_for(crate::screens::pane::keys::INPUT, Action::Abort),
        vec![Chord::ctrl('x')]
    );
}

#[test]
fn s1_a_socket_of_the_wrong_shape_is_refused_at_its_line_as_a_usage_error() {
    let error = parse("[agents.x]\nsocket = \"rel/x.sock\"\n").expect_err("relative");
    assert!(error.is_usage());
    assert_eq!(
        error.to_string(),
        r#"config.toml:2:10: socket = "rel/x.sock" in [agents.x] is not a valid value: the socket path must be absolute; write the whole path from /"#
    );
    let error = parse(
        "[agents.a]\nsocket = \"/run/../a.sock\"\n[agents.b]\nsocket = \"b.sock\"\n[agents.c]\nsocket = \"/run/c.sock\"\n",
    )
    .expect_err("two of the wrong shape");
    assert!(error.is_usage());
    let said = error.to_string();
    assert!(
        said.starts_with("config.toml:2:10: socket = \"/run/../a.sock\" in [agents.a] is not a valid value: the socket path holds '.' or '..'\nconfig.toml:4:10: socket = \"b.sock\" in [agents.b]"),
        "{said}"
    );
    // Other refusals stay what they were: not the command line's kind of mistake.
    assert!(!parse("thme = 1\n").expect_err("unknown").is_usage());
}
