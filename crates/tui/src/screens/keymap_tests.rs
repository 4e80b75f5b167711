//! The keymap as the phone starts with it, built from every room's key parts
//! (`Keymap::defaults(&key_parts())`): the tests of `app/keymap.rs` that need the rooms' real
//! parts live here, above both, since the keymap names no room.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::keymap::*;

/// The keymap the phone starts with: every room's default keys.
fn defaults() -> Keymap {
    Keymap::defaults(&crate::screens::key_parts())
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

#[test]
fn arrows_and_vim_keys_move() {
    let keymap = defaults();
    let down = keymap.action(
        crate::screens::home::keys::HOME,
        &key(KeyCode::Char('j'), KeyModifiers::NONE),
    );
    assert_eq!(down, Some(Action::Down));
    let down = keymap.action(
        crate::screens::home::keys::HOME,
        &key(KeyCode::Down, KeyModifiers::NONE),
    );
    assert_eq!(down, Some(Action::Down));
    let bottom = keymap.action(
        crate::screens::home::keys::HOME,
        &key(KeyCode::Char('G'), KeyModifiers::SHIFT),
    );
    assert_eq!(bottom, Some(Action::Bottom));
}

#[test]
fn typing_contexts_leave_letters_alone() {
    let keymap = defaults();
    for context in [
        crate::screens::pane::keys::INPUT,
        crate::screens::card::keys::TEXT,
        crate::screens::card::keys::TYPING,
        crate::screens::card::keys::SAY_WHY,
        crate::app::overlay::keys::PROMPT,
        crate::app::overlay::keys::FILTER,
        crate::screens::search::keys::SEARCH,
    ] {
        for c in "abcdefghijklmnopqrstuvwxyzRGHq?/0123456789 ".chars() {
            assert_eq!(
                keymap.action(context, &key(KeyCode::Char(c), KeyModifiers::NONE)),
                None,
                "{c} in {context:?}"
            );
        }
    }
}

#[test]
fn typing_contexts_leave_the_editing_chords_to_the_editor() {
    // The keymap's action wins before typing, so a binding here would swallow the chord.
    let keymap = defaults();
    let (ctrl, alt) = (KeyModifiers::CONTROL, KeyModifiers::ALT);
    let mut chords: Vec<(KeyCode, KeyModifiers)> = "ukwyzae_7/"
        .chars()
        .map(|c| (KeyCode::Char(c), ctrl))
        .chain("dbfz".chars().map(|c| (KeyCode::Char(c), alt)))
        .collect();
    chords.push((KeyCode::Char('Z'), ctrl | KeyModifiers::SHIFT));
    for code in [
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Backspace,
        KeyCode::Delete,
    ] {
        chords.extend([(code, ctrl), (code, alt), (code, KeyModifiers::NONE)]);
    }
    chords.extend([KeyCode::Home, KeyCode::End].map(|c| (c, KeyModifiers::NONE)));
    for context in [
        crate::screens::pane::keys::INPUT,
        crate::screens::card::keys::TEXT,
        crate::screens::card::keys::TYPING,
        crate::screens::card::keys::SAY_WHY,
        crate::app::overlay::keys::PROMPT,
        crate::app::overlay::keys::FILTER,
        crate::screens::search::keys::SEARCH,
        crate::screens::dsh_form::keys::FORM,
    ] {
        for (code, modifiers) in &chords {
            assert_eq!(
                keymap.action(context, &key(*code, *modifiers)),
                None,
                "{code:?} {modifiers:?} in {context:?}"
            );
        }
    }
}

#[test]
fn the_message_kind_is_ctrl_t_while_typing_and_k_in_the_chat() {
    let keymap = defaults();
    let ctrl_t = key(KeyCode::Char('t'), KeyModifiers::CONTROL);
    assert_eq!(
        keymap.action(crate::screens::pane::keys::INPUT, &ctrl_t),
        Some(Action::MessageKind)
    );
    let k = key(KeyCode::Char('K'), KeyModifiers::SHIFT);
    assert_eq!(
        keymap.action(crate::screens::pane::keys::CHAT, &k),
        Some(Action::MessageKind)
    );
}

#[test]
fn enter_never_says_yes_to_allow_always() {
    let keymap = defaults();
    let enter = key(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        keymap.action(crate::app::overlay::keys::CONFIRM_ALWAYS, &enter),
        None
    );
    let y = key(KeyCode::Char('y'), KeyModifiers::NONE);
    assert_eq!(
        keymap.action(crate::app::overlay::keys::CONFIRM_ALWAYS, &y),
        Some(Action::ConfirmAlways)
    );
    // Rebinding the plain yes leaves the allow-always yes alone.
    let keymap = Keymap::with_overrides(
        &crate::screens::key_parts(),
        &[(
            Action::Confirm,
            vec![Chord::plain(KeyCode::Enter), Chord::ch('y')],
        )],
    )
    .expect("no key does two things");
    assert_eq!(
        keymap.action(crate::app::overlay::keys::CONFIRM_ALWAYS, &enter),
        None
    );
}

#[test]
fn card_help_says_option_keys_select() {
    let help = defaults().help(crate::screens::card::keys::CHOOSING);
    assert!(
        help.iter()
            .any(|(keys, what)| keys == "3" && what == "Select option 3")
    );
    assert!(
        help.iter()
            .any(|(keys, what)| keys == "y" && what == "Select allow once")
    );
    assert!(
        help.iter()
            .any(|(keys, what)| keys == "Enter" && what.starts_with("Answer"))
    );
}

#[test]
fn chords_parse_and_print() {
    assert_eq!(Chord::parse("ctrl-r"), Ok(Chord::ctrl('r')));
    assert_eq!(Chord::parse("alt-enter"), Ok(Chord::alt(KeyCode::Enter)));
    assert_eq!(
        Chord::parse("shift-tab"),
        Ok(Chord::plain(KeyCode::BackTab))
    );
    assert_eq!(Chord::parse("F2"), Ok(Chord::plain(KeyCode::F(2))));
    assert_eq!(Chord::parse("G"), Ok(Chord::ch('G')));
    assert_eq!(Chord::parse("shift-g"), Ok(Chord::ch('G')));
    assert!(Chord::parse("hyper-x").is_err());
    assert_eq!(Chord::ctrl('r').to_string(), "Ctrl-R");
    assert_eq!(Chord::plain(KeyCode::PageUp).to_string(), "PgUp");
}

#[test]
fn overrides_replace_an_action_everywhere() {
    let keymap = Keymap::with_overrides(
        &crate::screens::key_parts(),
        &[
            (Action::Quit, vec![Chord::ctrl('q')]),
            (Action::JumpExpiring, vec![Chord::ch('x')]),
        ],
    )
    .expect("no key does two things");
    let q = key(KeyCode::Char('q'), KeyModifiers::NONE);
    assert_eq!(keymap.action(crate::screens::home::keys::HOME, &q), None);
    let ctrl_q = key(KeyCode::Char('q'), KeyModifiers::CONTROL);
    assert_eq!(
        keymap.action(crate::screens::layout::keys::LAYOUT, &ctrl_q),
        Some(Action::Quit)
    );
    let x = key(KeyCode::Char('x'), KeyModifiers::NONE);
    assert_eq!(
        keymap.action(crate::screens::home::keys::HOME, &x),
        Some(Action::JumpExpiring)
    );
}

#[test]
fn no_key_means_two_things_in_one_context() {
    let keymap = defaults();
    for (context, list) in keymap.bindings() {
        for (i, (chord, action)) in list.iter().enumerate() {
            if let Some((_, other)) = list[i + 1..].iter().find(|(c, _)| c == chord) {
                panic!("{chord} is {action:?} and {other:?} in {context:?}");
            }
        }
    }
}

#[test]
fn in_a_pane_slash_searches_and_n_goes_to_the_next_match() {
    let keymap = defaults();
    let plain = |c| key(KeyCode::Char(c), KeyModifiers::NONE);
    assert_eq!(
        keymap.action(crate::screens::pane::keys::CHAT, &plain('/')),
        Some(Action::Search)
    );
    assert_eq!(
        keymap.action(crate::screens::pane::keys::CHAT, &plain('n')),
        Some(Action::NextMatch)
    );
    assert_eq!(
        keymap.action(
            crate::screens::pane::keys::CHAT,
            &key(KeyCode::Char('N'), KeyModifiers::SHIFT)
        ),
        Some(Action::PrevMatch)
    );
    assert_eq!(
        keymap.action(crate::screens::pane::keys::CHAT, &plain('y')),
        Some(Action::Copy)
    );
    assert_eq!(
        keymap.action(crate::screens::home::keys::HOME, &plain('/')),
        Some(Action::Filter)
    );
    assert_eq!(
        keymap.action(crate::screens::home::keys::HOME, &plain('n')),
        Some(Action::NewPage)
    );
}

#[test]
fn m_turns_the_mouse_on_and_off_on_every_screen_that_does_not_take_typing() {
    let keymap = defaults();
    let m = key(KeyCode::Char('M'), KeyModifiers::SHIFT);
    for context in [
        crate::screens::home::keys::HOME,
        crate::screens::layout::keys::LAYOUT,
        crate::screens::pane::keys::CHAT,
        crate::screens::card::keys::CHOOSING,
        crate::screens::new::keys::NEW,
        crate::screens::history::keys::LIST,
        crate::screens::history::keys::CONVERSATION,
        crate::screens::inspector::keys::INSPECTOR,
        crate::screens::exchange::keys::EXCHANGE,
    ] {
        assert_eq!(
            keymap.action(context, &m),
            Some(Action::Mouse),
            "{context:?}"
        );
        assert!(
            keymap
                .help(context)
                .iter()
                .any(|(keys, what)| keys == "M" && what.starts_with("Mouse on or off")),
            "{context:?}"
        );
    }
    assert_eq!(keymap.action(crate::screens::pane::keys::INPUT, &m), None);
}

#[test]
fn help_is_generated_from_the_table() {
    let keymap = defaults();
    let help = keymap.help(crate::screens::home::keys::HOME);
    assert!(
        help.iter()
            .any(|(keys, what)| keys == "↑ k" && what == "Move up")
    );
    assert!(help.iter().any(|(keys, _)| keys == "e"));
}

/// A pane's box and a card's typed answer and form have the same box keys (the help, a new
/// line): one list, `keymap::text_box`, so a key added to the box is on the card too
/// (docs/KEYS.md).
#[test]
fn the_box_and_the_cards_share_the_box_keys() {
    let keymap = defaults();
    for context in [
        crate::screens::pane::keys::INPUT,
        crate::screens::card::keys::TEXT,
        crate::screens::card::keys::TYPING,
        crate::screens::card::keys::SAY_WHY,
    ] {
        for (chord, action) in crate::app::keymap::text_box() {
            let event = key(chord.code, chord.modifiers);
            assert_eq!(
                keymap.action(context, &event),
                Some(action),
                "{chord} in {context:?}"
            );
        }
    }
}

/// The moves between panes are on every part the key to the asks is on, a card's and the box's
/// included (docs/KEYS.md, "Moving without going back"), and `[keys]` moves them there too.
#[test]
fn the_moves_between_panes_are_wherever_the_key_to_the_asks_is() {
    let keymap = defaults();
    let mut parts = 0;
    for context in keymap.contexts() {
        if keymap.keys_for(context, Action::NextAsk).is_empty() {
            continue;
        }
        parts += 1;
        for (chord, action) in moves() {
            assert_eq!(
                keymap.action(context, &key(chord.code, chord.modifiers)),
                Some(action),
                "{chord} in {context:?}"
            );
        }
    }
    assert!(parts >= 10, "{parts} parts have the key to the asks");
    let ctrl_down = Chord::parse("ctrl-down").expect("a key");
    let keymap = Keymap::with_overrides(
        &crate::screens::key_parts(),
        &[(Action::NextPane, vec![ctrl_down])],
    )
    .expect("no key does two things");
    for context in [
        crate::screens::pane::keys::INPUT,
        crate::screens::card::keys::TEXT,
        crate::screens::home::keys::HOME,
    ] {
        assert_eq!(
            keymap.action(context, &key(KeyCode::Down, KeyModifiers::CONTROL)),
            Some(Action::NextPane),
            "{context:?}"
        );
        assert_eq!(
            keymap.action(context, &key(KeyCode::Down, KeyModifiers::ALT)),
            None
        );
    }
}
