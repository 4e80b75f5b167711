//! Faults and edges told true, with the real binary where a person meets them: a number field
//! says at the key why a letter was not typed; the demo heals its own agent; two agents whose
//! sockets share a file name both come up; a failed check's code is on the agent's row; the
//! headless commands find the demo; an ACP agent that cannot start says why; bad arguments
//! exit 2 and a `watch` whose folder is gone exits 8 (docs/SCRIPTING.md).

use crate::common;
use crate::tmux::demo_home;

use common::tmux::{Tmux, tmux_installed};

/// A number field (docs/ASKS.md) takes digits; a letter typed into it is not dropped in
/// silence: the card says at the key that the field takes a number.
#[test]
fn a_number_field_says_at_the_key_that_it_takes_a_number() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let (_home, _runtime, command) = demo_home("demo --speed 0");
    let tmux = Tmux::start("number-field", (80, 24), &command);
    tmux.until("the inbox", |s| s.contains("Needs your answer (4)"));
    tmux.keys(&["j"]);
    tmux.select("Deploy settings");
    tmux.keys(&["Enter"]);
    tmux.until("the form card", |s| s.contains("Replicas"));
    // Environment, Dry run, Replicas: its default 2 is erased, then letters arrive in a bunch.
    tmux.keys(&["Tab", "Tab", "BSpace"]);
    tmux.text("abc");
    tmux.until("the word at the key", |s| {
        s.contains("Replicas takes a number") && s.contains("“c” was not typed")
    });
    // Digits are typed, and the word goes.
    tmux.text("3");
    tmux.until("the digit typed", |s| {
        s.contains("Replicas") && !s.contains("takes a number")
    });
}
