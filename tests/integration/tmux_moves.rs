//! The walk through the asks and the news marks in a real terminal (docs/KEYS.md, SPEC A20,
//! A22): the real binary in tmux on three reference agents that play at different speeds, so
//! their asks expire at different times and their panes stream while the person is elsewhere.
//! Ctrl-N walks the asks soonest deadline first and says how many more need the person; an ask
//! whose deadline passes while the person is on another leaves the walk; a pane that streamed
//! is marked on Workspaces, opening it clears its mark, and a phone started again keeps the
//! marks of the panes not yet seen. Skipped, with a note, where tmux is not installed.

use crate::common;

use std::time::{Duration, Instant};

use common::AgentProcess;
use common::tmux::{Tmux, private_home, tmux_installed};
use common::{BIN, temp_dir};

/// The card on screen: its agent, its pane's title, and the seconds it has left if it says.
fn card(screen: &str) -> Option<(String, String, Option<u64>)> {
    if !screen.lines().next()?.contains("› Ask") {
        return None;
    }
    let line = screen.lines().nth(2)?.trim().trim_matches('│').trim();
    let (agent, rest) = line.split_once(" · ")?;
    // "0:07 left", or "expired" once its deadline passed as it was read.
    if let Some(title) = rest.strip_suffix("expired") {
        return Some((agent.to_string(), title.trim().to_string(), Some(0)));
    }
    let left = rest.strip_suffix(" left").and_then(|r| {
        let clock = r.split_whitespace().last()?;
        let (m, s) = clock.split_once(':')?;
        Some(m.parse::<u64>().ok()? * 60 + s.parse::<u64>().ok()?)
    });
    let title = match left {
        Some(_) => rest
            .trim_end_matches(" left")
            .rsplit_once(' ')
            .map_or(rest, |(t, _)| t)
            .trim(),
        None => rest.trim(),
    };
    Some((agent.to_string(), title.to_string(), left))
}

/// "12 asks need your answer" at the top right, as a number.
fn asks_in_header(screen: &str) -> Option<usize> {
    let first = screen.lines().next()?;
    let before = first.split(" ask").next()?;
    before.split_whitespace().last()?.parse().ok()
}

/// "3 more need you." on the footer, as a number; the last one as 0.
fn more_said(screen: &str) -> Option<usize> {
    if screen.contains("The last ask that needs you.") {
        return Some(0);
    }
    let line = screen
        .lines()
        .find(|l| l.contains(" more need you.") || l.contains(" more needs you."))?;
    line.split(" more need")
        .next()?
        .split_whitespace()
        .last()?
        .parse()
        .ok()
}

/// The titles of the panes Workspaces marks, with whether the row says their chat grew.
fn marked_rows(screen: &str) -> Vec<(String, bool)> {
    screen
        .lines()
        .filter_map(|line| {
            let row: String = line.chars().skip(2).collect();
            let rest = row.trim_start().strip_prefix("● ")?;
            let title = rest.split("  ").next()?.trim().to_string();
            Some((title, line.contains("new chat")))
        })
        .collect()
}

/// Ctrl-N, then the card it opened once it is another than `before`.
fn next_card(tmux: &Tmux, before: Option<&(String, String, Option<u64>)>) -> String {
    tmux.keys(&["C-n"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let screen = tmux.screen();
        if let Some(now) = card(&screen)
            && before.is_none_or(|b| (&b.0, &b.1) != (&now.0, &now.1))
            && more_said(&screen).is_some()
        {
            return screen;
        }
        assert!(Instant::now() < deadline, "no next card:\n{screen}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn ctrl_n_walks_three_agents_soonest_first_and_marks_outlive_a_restart() {
    if !tmux_installed() {
        eprintln!(
            "SKIPPED ctrl_n_walks_three_agents_soonest_first_and_marks_outlive_a_restart: tmux is not installed"
        );
        return;
    }
    let started = Instant::now();
    let dirs = [temp_dir(), temp_dir(), temp_dir()];
    let names = ["fast", "mid", "slow"];
    let sockets: Vec<String> = dirs
        .iter()
        .zip(names)
        .map(|(dir, name)| {
            let socket = dir.path().join("run").join(format!("{name}.sock"));
            socket.to_str().expect("utf-8").to_string()
        })
        .collect();
    // The demo's Release notes ask expires 45 s of an agent's time after it opens: 9 s at
    // speed 5, 11 s at 4, 15 s at 3.
    let _agents: Vec<AgentProcess> = sockets
        .iter()
        .zip(["5", "4", "3"])
        .map(|(socket, speed)| {
            AgentProcess::start(&["agent", "--socket", socket, "--speed", speed])
        })
        .collect();
    let (home, runtime) = private_home("cp-moves-");
    // No rings: their lines on the status line would take the place of the walk's count.
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        "[notify]\nnew-ask = \"off\"\nexpiring = \"off\"\nturn-ended = \"off\"\nreachability = \"off\"\n",
    )
    .expect("the config");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600))
            .expect("a private config");
    }
    let command = format!(
        "env XDG_RUNTIME_DIR={run} XDG_STATE_HOME={home}/state XDG_CONFIG_HOME={home}/config {BIN} --config {config} --socket {} --socket {} --socket {}",
        sockets[0],
        sockets[1],
        sockets[2],
        run = runtime.display(),
        home = home.path().display(),
        config = config.display()
    );
    let tmux = Tmux::start("moves", (120, 40), &command);
    tmux.until("every agent's expiring ask on Home", |s| {
        s.matches("publish_docs").count() >= 3 && s.contains("first: expires in")
    });

    // (a) From Home Ctrl-N opens the ask that expires soonest; on its card, the next; each
    // card says how many more need the person, as many as the header counts besides it.
    let mut walked: Vec<(String, String, Instant)> = Vec::new();
    let mut last = None;
    let mut steady = 0;
    for _ in 0..8 {
        let before = asks_in_header(&tmux.screen()).expect("the header counts the asks");
        let screen = next_card(&tmux, last.as_ref());
        let now = card(&screen).expect("a card");
        let Some(left) = now.2 else {
            // The first without a deadline comes after every dated one.
            last = Some(now);
            break;
        };
        let at = Instant::now() + Duration::from_secs(left);
        if let Some((_, _, before)) = walked.last() {
            assert!(
                at + Duration::from_millis(1500) >= *before,
                "soonest first: {now:?} after {walked:?}"
            );
        }
        // The footer says it at the key, the header counts at each frame: judged when no ask
        // came or went across the key (the agents keep asking as they play), else it lies
        // between the counts before and after.
        let more = more_said(&screen).expect("the footer says how many more");
        let after = asks_in_header(&screen).expect("the header counts the asks");
        let (low, high) = (before.min(after), before.max(after));
        assert!(
            (low..=high).contains(&(more + 1)),
            "{more} more, {before} asks before the key and {after} after:\n{screen}"
        );
        steady += usize::from(before == after);
        walked.push((now.0.clone(), now.1.clone(), at));
        last = Some(now);
    }
    assert!(
        steady > 0,
        "no count was read with the asks steady: {walked:?}"
    );
    for name in names {
        assert!(
            walked
                .iter()
                .any(|(agent, title, _)| agent == name && title == "Release notes"),
            "{name}'s expiring ask is walked: {walked:?}"
        );
    }
    // An ask whose deadline passes while the person is on another leaves the walk: the
    // soonest Release notes ask, waited out on the card now on screen, never opens again.
    let (gone_agent, _, gone_at) = walked
        .iter()
        .find(|(_, title, _)| title == "Release notes")
        .cloned()
        .expect("a Release notes ask");
    let on_screen = last.clone().expect("a card on screen");
    assert_ne!(
        (on_screen.0.as_str(), on_screen.1.as_str()),
        (gone_agent.as_str(), "Release notes")
    );
    let wait = gone_at.saturating_duration_since(Instant::now()) + Duration::from_millis(1500);
    std::thread::sleep(wait);
    let total = asks_in_header(&tmux.screen()).expect("the header counts the asks");
    for _ in 0..total + 1 {
        let screen = next_card(&tmux, last.as_ref());
        let now = card(&screen).expect("a card");
        assert!(
            !(now.0 == gone_agent && now.1 == "Release notes" && screen.contains("publish_docs")),
            "the expired ask is walked again:\n{screen}"
        );
        last = Some(now);
    }
    let walk_took = started.elapsed();

    // (b) The news marks: the slow agent's Workspaces mark the panes that streamed since the
    // phone first read them, and say so; opening one clears its mark.
    tmux.keys(&["Escape"]);
    tmux.until("Home", |s| s.contains("Agents") && s.contains("with news"));
    tmux.select("slow (");
    tmux.keys(&["Enter"]);
    tmux.until("slow's Workspaces with a chat that grew", |s| {
        s.contains("slow — workspaces") && marked_rows(s).iter().any(|(_, grew)| *grew)
    });
    let screen = tmux.screen();
    let (opened, _) = marked_rows(&screen)
        .into_iter()
        .find(|(_, grew)| *grew)
        .expect("a marked row");
    tmux.select(&opened);
    tmux.keys(&["Enter"]);
    tmux.until("the pane", |s| {
        s.lines().next().is_some_and(|l| l.contains(&opened))
    });
    tmux.keys(&["Escape"]);
    tmux.until("Workspaces again", |s| s.contains("slow — workspaces"));
    let back = tmux.screen();
    assert!(
        !marked_rows(&back).iter().any(|(title, _)| *title == opened),
        "{opened} is marked still:\n{back}"
    );
    // The phone quits; a new one on the same state folder marks again every pane whose chat
    // grew unseen (more may grow meanwhile).
    let grew: Vec<String> = marked_rows(&tmux.screen())
        .into_iter()
        .filter(|(title, grew)| *grew && *title != opened)
        .map(|(title, _)| title)
        .collect();
    assert!(!grew.is_empty(), "{}", tmux.screen());
    // The walk opened form cards whose fields hold only their defaults: no words of the
    // person's are dropped, so the phone quits at once.
    tmux.keys(&["q"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while tmux.alive() {
        assert!(
            Instant::now() < deadline,
            "the phone did not quit:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let kept = home
        .path()
        .join("state")
        .join("collie-phone")
        .join("seen.json");
    assert!(kept.is_file(), "{} kept at quit", kept.display());
    drop(tmux);
    let again = Tmux::start("moves-again", (120, 40), &command);
    again.until("Home", |s| s.contains("Agents") && s.contains("with news"));
    again.select("slow (");
    again.keys(&["Enter"]);
    again.until("the marks of the panes not yet seen", |s| {
        let marked = marked_rows(s);
        s.contains("slow — workspaces")
            && grew
                .iter()
                .all(|title| marked.iter().any(|(t, _)| t == title))
    });
    eprintln!(
        "tmux moves: the walk took {walk_took:?}, all of it {:?}",
        started.elapsed()
    );
}
