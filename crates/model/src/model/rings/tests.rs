use std::sync::Arc;

use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;

use super::*;
use crate::engine::AgentStatus;
use crate::wire::Snapshot;

const T0: OffsetDateTime = datetime!(2026-12-07 10:00:00 UTC);

fn at(seconds: i64) -> OffsetDateTime {
    T0 + time::Duration::seconds(seconds)
}

/// A reachable agent "laptop" with one pane "p1" holding `asks` and a turn.
fn view(asks: serde_json::Value, turn: Option<(&str, &str)>) -> AgentView {
    let mut view = AgentView::new("laptop", false);
    view.status = AgentStatus::Ready;
    view.synced = Some(T0);
    let turn = turn.map(|(id, state)| json!({"id": id, "state": state}));
    let snapshot: Snapshot = serde_json::from_value(json!({
        "epoch": "e1", "rev": 1,
        "workspaces": [{"id": "w", "title": "W", "tabs": [{"id": "t", "title": "T", "panes": [
            {"id": "p1", "title": "build", "state": "waiting", "turn": turn, "asks": asks}
        ]}]}]
    }))
    .expect("a snapshot");
    view.snapshot = Some(Arc::new(snapshot));
    view.note_asks();
    view
}

fn ask(id: &str, title: &str, expires_at: Option<OffsetDateTime>) -> serde_json::Value {
    let mut ask = json!({
        "id": id, "revision": 1, "kind": "permission", "title": title,
        "permission": {"tool": "shell", "arguments": {}, "options": [
            {"id": "allow", "label": "Allow", "effect": "allow"},
            {"id": "deny", "label": "Deny", "effect": "deny"}
        ]}
    });
    if let Some(at) = expires_at {
        ask["expiresAt"] = json!(crate::wire::Stamp::of(at).text());
    }
    ask
}

fn events(happenings: &[Happening]) -> Vec<Event> {
    happenings.iter().map(|h| h.event).collect()
}

#[test]
fn where_the_person_is_decides_the_signal() {
    use Attention::*;
    assert_eq!(decide(Loudness::Ring, OnIt, false), Signal::Nothing);
    assert_eq!(decide(Loudness::Ring, Elsewhere, false), Signal::Quiet);
    assert_eq!(decide(Loudness::Ring, Away, false), Signal::Full);
    assert_eq!(decide(Loudness::Quiet, Away, false), Signal::Quiet);
    assert_eq!(decide(Loudness::Quiet, OnIt, false), Signal::Nothing);
    assert_eq!(decide(Loudness::Off, Away, false), Signal::Nothing);
    // A mute keeps the line and drops the sound.
    assert_eq!(decide(Loudness::Ring, Away, true), Signal::Quiet);
    assert_eq!(decide(Loudness::Ring, OnIt, true), Signal::Nothing);
}

#[test]
fn focus_reports_win_and_without_them_a_minute_of_no_key_is_away() {
    assert!(watched(Some(true), at(-3600), T0));
    assert!(!watched(Some(false), T0, T0));
    assert!(watched(None, at(-59), T0));
    assert!(!watched(None, at(-60), T0));
    assert_eq!(attention(true, true), Attention::OnIt);
    assert_eq!(attention(true, false), Attention::Elsewhere);
    assert_eq!(attention(false, true), Attention::Away);
}

#[test]
fn the_defaults_ring_for_asks_and_keep_turns_and_reachability_quiet() {
    let rules = Rules::default();
    assert_eq!(rules.loudness(Event::NewAsk), Loudness::Ring);
    assert_eq!(rules.loudness(Event::Expiring), Loudness::Ring);
    assert_eq!(rules.loudness(Event::TurnEnded), Loudness::Quiet);
    assert_eq!(rules.loudness(Event::Unreachable), Loudness::Quiet);
    assert_eq!(rules.loudness(Event::Back), Loudness::Quiet);
    assert_eq!((rules.after, rules.limit), (30, 10));
}

#[test]
fn a_mute_holds_everything_but_an_expiring_ask_unless_told() {
    let mute = Mute {
        until: at(1800),
        even_expiring: false,
    };
    assert!(mute.holds(Event::NewAsk, T0));
    assert!(!mute.holds(Event::Expiring, T0));
    assert!(!mute.holds(Event::NewAsk, at(1800)));
    let all = Mute {
        even_expiring: true,
        ..mute
    };
    assert!(all.holds(Event::Expiring, T0));
}

#[test]
fn asks_open_at_the_first_hearing_ring_nothing_and_new_ones_ring_once() {
    let mut rings = Rings::default();
    assert!(
        rings
            .heard(&view(json!([ask("a1", "Old?", None)]), None), T0)
            .is_empty()
    );
    let both = view(
        json!([ask("a1", "Old?", None), ask("a2", "Deploy?", None)]),
        None,
    );
    let heard = rings.heard(&both, at(1));
    assert_eq!(events(&heard), [Event::NewAsk]);
    assert_eq!(heard[0].id, "ask/laptop/p1/a2");
    assert_eq!(heard[0].words(), "laptop: Deploy?");
    assert!(
        rings.heard(&both, at(2)).is_empty(),
        "heard again, rings not again"
    );
}

#[test]
fn an_ask_seventy_seconds_from_its_deadline_rings_at_sixty_and_ten() {
    let mut rings = Rings::default();
    rings.heard(&view(json!([]), None), T0);
    let deadline = at(70);
    let heard = rings.heard(
        &view(json!([ask("a1", "Deploy?", Some(deadline))]), None),
        T0,
    );
    assert_eq!(events(&heard), [Event::NewAsk]);
    let mut rang = Vec::new();
    for second in 0..=75 {
        for happening in rings.tick(at(second)) {
            rang.push((
                second,
                happening.event,
                happening.json()["secondsLeft"].clone(),
            ));
        }
    }
    assert_eq!(
        rang,
        [
            (10, Event::Expiring, json!(60)),
            (60, Event::Expiring, json!(10)),
        ]
    );
}

#[test]
fn an_ask_first_heard_inside_its_last_minute_rings_only_the_ten_seconds() {
    let mut rings = Rings::default();
    rings.heard(&view(json!([]), None), T0);
    rings.heard(&view(json!([ask("a1", "Deploy?", Some(at(30)))]), None), T0);
    let rang: Vec<i64> = (0..40).filter(|s| !rings.tick(at(*s)).is_empty()).collect();
    assert_eq!(rang, [20]);
}

#[test]
fn a_turn_that_ended_rings_once_and_a_new_turn_ends_it() {
    let mut rings = Rings::default();
    assert!(
        rings
            .heard(&view(json!([]), Some(("t1", "running"))), T0)
            .is_empty()
    );
    let heard = rings.heard(&view(json!([]), Some(("t1", "done"))), at(1));
    assert_eq!(events(&heard), [Event::TurnEnded]);
    assert_eq!(heard[0].json()["turn"]["how"], "done");
    assert!(
        rings
            .heard(&view(json!([]), Some(("t1", "done"))), at(2))
            .is_empty()
    );
    // A turn that ran between two polls still ended.
    let heard = rings.heard(&view(json!([]), Some(("t2", "aborted"))), at(3));
    assert_eq!(heard[0].json()["turn"]["how"], "stopped");
    // A pane first heard with its turn over says nothing.
    let mut fresh = Rings::default();
    assert!(
        fresh
            .heard(&view(json!([]), Some(("t1", "failed"))), T0)
            .is_empty()
    );
}

#[test]
fn an_agent_lost_and_back_is_told_both_ways() {
    let mut rings = Rings::default();
    let mut laptop = view(json!([]), None);
    rings.heard(&laptop, T0);
    laptop.status = AgentStatus::Unreachable {
        reason: "gone".into(),
        last_seen: None,
    };
    assert_eq!(events(&rings.heard(&laptop, at(1))), [Event::Unreachable]);
    assert!(rings.heard(&laptop, at(2)).is_empty());
    laptop.status = AgentStatus::Ready;
    assert_eq!(events(&rings.heard(&laptop, at(3))), [Event::Back]);
}

#[test]
fn the_command_runs_once_after_the_wait_unwatched_and_closed_follows_the_answer() {
    let mut rings = Rings::default();
    rings.heard(&view(json!([]), None), T0);
    let heard = rings.heard(&view(json!([ask("a1", "Deploy?", None)]), None), T0);
    rings.hold(&heard[0], T0);
    let away = |_: &Subject| Attention::Away;
    assert!(rings.due(30, at(29), away, None).is_empty());
    let due = rings.due(30, at(30), away, None);
    assert_eq!(events(&due), [Event::NewAsk]);
    assert!(rings.due(30, at(31), away, None).is_empty(), "once");
    let closed = rings.heard(&view(json!([]), None), at(40));
    assert_eq!(events(&closed), [Event::Closed]);
    assert_eq!(closed[0].id, due[0].id);
    assert_eq!(closed[0].json()["reason"], "answered");
}

#[test]
fn watching_starts_the_wait_again_and_an_answer_before_it_sends_no_closed() {
    let mut rings = Rings::default();
    rings.heard(&view(json!([]), None), T0);
    let heard = rings.heard(&view(json!([ask("a1", "Deploy?", None)]), None), T0);
    rings.hold(&heard[0], T0);
    assert!(
        rings
            .due(30, at(20), |_| Attention::Elsewhere, None)
            .is_empty()
    );
    assert!(rings.due(30, at(49), |_| Attention::Away, None).is_empty());
    assert!(rings.due(30, at(30), |_| Attention::OnIt, None).is_empty());
    assert!(rings.heard(&view(json!([]), None), at(55)).is_empty());
    assert!(rings.due(30, at(99), |_| Attention::Away, None).is_empty());
}

#[test]
fn a_mute_holds_the_command_back_and_an_expiring_ask_goes_at_once() {
    let mut rings = Rings::default();
    rings.heard(&view(json!([]), None), T0);
    let heard = rings.heard(
        &view(json!([ask("a1", "Deploy?", Some(at(100)))]), None),
        T0,
    );
    rings.hold(&heard[0], T0);
    let mute = Mute {
        until: at(3600),
        even_expiring: false,
    };
    assert!(
        rings
            .due(30, at(35), |_| Attention::Away, Some(&mute))
            .is_empty()
    );
    let expiring = rings.tick(at(40));
    assert_eq!(events(&expiring), [Event::Expiring]);
    rings.hold(&expiring[0], at(40));
    let due = rings.due(30, at(40), |_| Attention::Away, Some(&mute));
    assert_eq!(events(&due), [Event::Expiring]);
    assert_eq!(due[0].id, heard[0].id, "one id for the ask's every push");
}

#[test]
fn the_json_holds_the_ask_and_the_command_that_answers_it() {
    let mut rings = Rings::default();
    rings.dial_with("laptop", "--socket /tmp/x.sock".into());
    rings.heard(&view(json!([]), None), T0);
    let heard = rings.heard(&view(json!([ask("a1", "Deploy?", Some(at(90)))]), None), T0);
    let value = heard[0].json();
    assert_eq!(value["event"], "new-ask");
    assert_eq!(value["agent"], "laptop");
    assert_eq!(value["pane"], "p1");
    assert_eq!(value["paneTitle"], "build");
    assert_eq!(value["ask"]["kind"], "permission");
    assert_eq!(value["ask"]["title"], "Deploy?");
    assert_eq!(value["ask"]["options"][0]["id"], "allow");
    assert_eq!(
        value["ask"]["options"][1]["answer"],
        "collie-phone answer --socket /tmp/x.sock a1 deny"
    );
    assert_eq!(
        value["answer"],
        "collie-phone answer --socket /tmp/x.sock a1 OPTION"
    );
    assert_eq!(
        value["ask"]["expiresAt"],
        crate::wire::Stamp::of(at(90)).text()
    );
}

#[test]
fn a_hostile_title_arrives_clean_and_short() {
    let mut rings = Rings::default();
    rings.heard(&view(json!([]), None), T0);
    let title = format!(
        "\u{1b}]0;pwned\u{7}Deploy?\r\nrm -rf /\u{9b}31m{}",
        "x".repeat(400)
    );
    let heard = rings.heard(&view(json!([ask("a1", &title, None)]), None), T0);
    let value = heard[0].json();
    let shown = value["ask"]["title"].as_str().expect("a title");
    let words = heard[0].words();
    for text in [shown, value["text"].as_str().expect("text"), &words] {
        assert!(!text.chars().any(char::is_control), "{text:?}");
        assert!(text.len() <= MAX_RING_WORDS_BYTES, "{}", text.len());
    }
    assert!(shown.starts_with("]0;pwnedDeploy? rm -rf /"), "{shown}");
}

#[test]
fn a_pushed_ask_rung_again_as_it_nears_its_deadline_is_still_withdrawn() {
    let mut rings = Rings::default();
    rings.heard(&view(json!([]), None), T0);
    let deadline = at(100);
    let asks = json!([ask("a1", "Deploy?", Some(deadline))]);
    let heard = rings.heard(&view(asks.clone(), None), T0);
    rings.hold(&heard[0], T0);
    let pushed = rings.due(30, at(30), |_| Attention::Away, None);
    assert_eq!(events(&pushed), [Event::NewAsk]);
    // The person came back; the minute's ring holds the ask again, and nothing goes to the
    // command while they watch.
    let expiring = rings.tick(at(40));
    assert_eq!(events(&expiring), [Event::Expiring]);
    rings.hold(&expiring[0], at(40));
    assert!(rings.due(30, at(41), |_| Attention::OnIt, None).is_empty());
    // Answered: the push that went is withdrawn, under its id, as the ask was heard.
    let closed = rings.heard(&view(json!([]), None), at(50));
    assert_eq!(events(&closed), [Event::Closed]);
    assert_eq!(closed[0].id, pushed[0].id);
    let value = closed[0].json();
    assert_eq!(value["reason"], "answered");
    assert_eq!(value["secondsLeft"], serde_json::Value::Null);
    assert_eq!(value["text"], "laptop: Deploy? (closed: answered)");
}
