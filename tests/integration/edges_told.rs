//! Faults and edges told true, with the real binary where a person meets them: a number field
//! says at the key why a letter was not typed; the demo heals its own agent; two agents whose
//! sockets share a file name both come up; a failed check's code is on the agent's row; the
//! headless commands find the demo; an ACP agent that cannot start says why; bad arguments
//! exit 2 and a `watch` whose folder is gone exits 8 (docs/SCRIPTING.md).

use crate::common;
use crate::tmux::demo_home;

use common::tmux::{Tmux, tmux_installed};

const BIN: &str = env!("CARGO_BIN_EXE_collie-phone");

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

/// Two agents whose sockets share a file name (every agent on the seed's default path is
/// `agent.sock`) both come up, told apart by their folders; neither is refused.
#[test]
fn two_sockets_with_one_file_name_are_both_dialled() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let (first, second) = (common::temp_dir(), common::temp_dir());
    let _a = common::socket_agent(first.path(), &[]);
    let _b = common::socket_agent(second.path(), &[]);
    let name = |dir: &tempfile::TempDir| {
        format!(
            "{}/run/agent",
            dir.path().file_name().expect("a name").to_string_lossy()
        )
    };
    let (home, _runtime) = common::tmux::private_home("cp-two-");
    let command = format!(
        "env XDG_STATE_HOME={home}/state XDG_CONFIG_HOME={home}/config {BIN} --socket {a} --socket {b}",
        home = home.path().display(),
        a = first.path().join("run/agent.sock").display(),
        b = second.path().join("run/agent.sock").display(),
    );
    let tmux = Tmux::start("two-sockets", (120, 30), &command);
    let (a, b) = (name(&first), name(&second));
    tmux.until("both agents on Home", |s| s.contains(&a) && s.contains(&b));
    assert!(tmux.alive(), "the phone runs");
}

/// A `watch` already running when its agent's folder is removed ends as a fresh one does
/// (docs/SCRIPTING.md): exit 8 once the folder has stayed away for its grace, not "the folder
/// does not exist" until stopped.
#[test]
fn a_running_watch_whose_folder_goes_exits_as_a_fresh_one_does() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = common::temp_dir();
    let mut agent = common::socket_agent(dir.path(), &[]);
    let socket = dir.path().join("run/agent.sock");
    let mut watch = Command::new(BIN)
        .args(["watch", "--socket"])
        .arg(&socket)
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("watch runs");
    let mut lines = BufReader::new(watch.stdout.take().expect("stdout")).lines();
    let hello = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains("hello from"));
    assert!(hello.is_some(), "watch heard the agent");
    // Drain stdout so the watch never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    agent.stop(false);
    std::fs::remove_dir_all(dir.path().join("run")).expect("the folder goes");
    let gone = Instant::now();
    let status = loop {
        if let Some(status) = watch.try_wait().expect("try_wait") {
            break status;
        }
        assert!(
            gone.elapsed() < Duration::from_secs(15),
            "watch still runs 15 s after its folder went"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(
        status.code(),
        Some(8),
        "unreachable, as a fresh watch exits"
    );
    let mut said = String::new();
    std::io::Read::read_to_string(&mut watch.stderr.take().expect("stderr"), &mut said)
        .expect("stderr");
    assert!(said.contains("cannot reach the agent"), "{said}");
    // A fresh one, for the same rule.
    let fresh = Command::new(BIN)
        .args(["watch", "--socket"])
        .arg(&socket)
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .output()
        .expect("watch runs");
    assert_eq!(fresh.status.code(), Some(8));
}

/// A host of one ACP agent named codex, run as `acp` says (`NAME=COMMAND`); its first pane
/// is started, and the notice that it stopped is awaited. The host's log is `dir/host.log`.
async fn notice_of_a_stopped_acp_agent(
    dir: &std::path::Path,
    acp: &str,
) -> (common::AgentProcess, String) {
    notice_of_a_stopped_acp_agent_in(dir, acp, &[]).await
}

/// [`notice_of_a_stopped_acp_agent`] with the host started in these extra variables.
async fn notice_of_a_stopped_acp_agent_in(
    dir: &std::path::Path,
    acp: &str,
    env: &[(&str, &str)],
) -> (common::AgentProcess, String) {
    let project = dir.join("project");
    std::fs::create_dir_all(&project).expect("a workspace");
    let log = dir.join("host.log");
    let socket = dir.join("run/agent.sock");
    let config = dir.join("none.toml");
    let args = [
        "agent",
        "--socket",
        socket.to_str().expect("utf-8"),
        "--log",
        log.to_str().expect("utf-8"),
        "--config",
        config.to_str().expect("utf-8"),
        "--workspace",
        project.to_str().expect("utf-8"),
        "--acp",
        acp,
    ];
    let mut all_env = vec![("RUST_LOG", "info")];
    all_env.extend_from_slice(env);
    let process = common::AgentProcess::start_with_env(&args, &all_env);
    let client = process.client();
    common::wait_ready(&client).await;
    let reply = client
        .post(
            "/session/v1/starter/codex-1",
            serde_json::json!({"requestId": "c"}),
        )
        .await
        .expect(200, "ok");
    let pane = reply["paneId"].as_str().expect("a pane").to_string();
    let notice = common::eventually("the notice", std::time::Duration::from_secs(20), || {
        let client = &client;
        let pane = pane.clone();
        async move {
            common::panes::items(client, &pane)
                .await
                .into_iter()
                .filter(|i| i["kind"] == "notice")
                .filter_map(|i| i["text"].as_str().map(str::to_string))
                .find(|t| t.contains("stopped"))
        }
    })
    .await;
    (process, notice)
}

/// An ACP agent that cannot start says why on stderr (codex-acp with an old config, as seen):
/// the pane's notice carries its last lines, cleaned (SPEC L1); the host's log has them whole.
/// The stand-in reads its first message before it fails, as a real agent does: one that goes
/// before it reads has the next test.
#[tokio::test]
async fn an_acp_agent_that_cannot_start_says_why_in_the_pane() {
    let dir = common::temp_dir();
    let log = dir.path().join("host.log");
    let acp = "codex=sh -c 'read -r first; echo starting >&2; echo \"\u{1b}[2mloading config\u{1b}[0m\" >&2; echo \"reading ~/.codex/config.toml\" >&2; echo \"Error: approval_policy = \\\"untrusted\\\" is no longer supported; remove this setting\" >&2; exit 1'";
    let (_process, notice) = notice_of_a_stopped_acp_agent(dir.path(), acp).await;
    assert_eq!(
        notice,
        "codex stopped unexpectedly. It printed last: “loading config ⏎ reading ~/.codex/config.toml ⏎ Error: approval_policy = \"untrusted\" is no longer supported; remove this setting” (the whole is in the host's log). Send a message to start it again."
    );
    // The log is written by a thread of its own: its lines may land just after the notice.
    common::eventually(
        "the agent's stderr whole in the log",
        std::time::Duration::from_secs(10),
        || {
            let logged = std::fs::read_to_string(&log).unwrap_or_default();
            async move {
                (logged.contains("stderr: starting")
                    && logged.contains(
                        "stderr: Error: approval_policy = \"untrusted\" is no longer supported",
                    ))
                .then_some(())
            }
        },
    )
    .await;
}

/// An ACP agent that goes before it reads its first message: the host's write of
/// `initialize` may meet a closed pipe, and the host still reads the agent's stderr to its end
/// before it tells why it stopped, so its words are in the pane and the log either way.
#[tokio::test]
async fn an_acp_agent_gone_before_it_reads_has_its_words_in_the_pane() {
    let dir = common::temp_dir();
    let log = dir.path().join("host.log");
    // It closes its stdin at once, so a write to it is likely to fail.
    let acp = "codex=sh -c 'exec 0<&-; echo \"Error: bad config\" >&2; exit 1'";
    let (_process, notice) = notice_of_a_stopped_acp_agent(dir.path(), acp).await;
    assert_eq!(
        notice,
        "codex stopped unexpectedly. It printed last: “Error: bad config” (the whole is in the host's log). Send a message to start it again."
    );
    common::eventually(
        "the agent's words in the log",
        std::time::Duration::from_secs(10),
        || {
            let logged = std::fs::read_to_string(&log).unwrap_or_default();
            async move { logged.contains("stderr: Error: bad config").then_some(()) }
        },
    )
    .await;
}

/// The agent starts without the host's own variables (every `COLLIE_*` one: docs/ACP.md, "The
/// agent's process"), and a token the host knows is scrubbed from what it prints (SPEC T2).
#[tokio::test]
async fn an_acp_agent_gets_none_of_the_hosts_variables_and_its_words_lose_the_hosts_token() {
    let dir = common::temp_dir();
    let log = dir.path().join("host.log");
    let token = "collie-durable-token-for-this-test-0123456789";
    let acp = format!(
        "codex=sh -c 'read -r first; echo \"env: [${{COLLIE_DURABLE_TOKEN-unset}}] [${{COLLIE_HOST_ONLY-unset}}] [${{HOST_AND_AGENT-unset}}]\" >&2; echo \"found {token} elsewhere\" >&2; exit 1'"
    );
    let env = [
        ("COLLIE_DURABLE_TOKEN", token),
        ("COLLIE_HOST_ONLY", "the host's"),
        ("HOST_AND_AGENT", "passed"),
    ];
    let (_process, notice) = notice_of_a_stopped_acp_agent_in(dir.path(), &acp, &env).await;
    assert_eq!(
        notice,
        "codex stopped unexpectedly. It printed last: “env: [unset] [unset] [passed] ⏎ found [token hidden] elsewhere” (the whole is in the host's log). Send a message to start it again."
    );
    common::eventually(
        "the scrubbed line in the log",
        std::time::Duration::from_secs(10),
        || {
            let logged = std::fs::read_to_string(&log).unwrap_or_default();
            async move {
                (logged.contains("stderr: found [token hidden] elsewhere")
                    && !logged.contains(token))
                .then_some(())
            }
        },
    )
    .await;
}

/// An agent that writes a line on its stdout past the cap (64 MiB) is stopped, and the pane
/// says why in plain words; the host never holds more than the cap of it.
#[tokio::test]
async fn an_acp_agent_whose_stdout_line_never_ends_is_stopped_and_told() {
    let dir = common::temp_dir();
    let log = dir.path().join("host.log");
    let acp = "codex=sh -c 'read -r first; exec cat /dev/zero'";
    let (_process, notice) = notice_of_a_stopped_acp_agent(dir.path(), acp).await;
    assert_eq!(
        notice,
        "codex sent a message longer than 64 MiB on its stdout, which no message of ACP needs, so the host stopped it; the host's log says when. Send a message to start it again."
    );
    common::eventually("the log's line", std::time::Duration::from_secs(10), || {
        let logged = std::fs::read_to_string(&log).unwrap_or_default();
        async move {
            logged
                .contains("the agent wrote a line longer than 64 MiB on its stdout")
                .then_some(())
        }
    })
    .await;
}

/// A socket that fails the privacy check (SPEC S4): the agent's row has the state word and
/// the code a person looks up, and the part that failed is said once, not on two rows.
#[test]
fn a_failed_check_shows_its_code_and_says_the_part_once() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let dir = common::temp_dir();
    let _agent = common::socket_agent(dir.path(), &[]);
    let link = dir.path().join("run/link");
    std::os::unix::fs::symlink(dir.path().join("run/agent.sock"), &link).expect("a symlink");
    let failed = format!("{} is a symlink", link.display());
    for (name, size) in [("check-80", (80, 24)), ("check-wide", (200, 30))] {
        let command = format!(
            "env XDG_STATE_HOME={home}/state XDG_CONFIG_HOME={home}/config {BIN} --socket {link}",
            home = dir.path().display(),
            link = link.display()
        );
        let tmux = Tmux::start(name, size, &command);
        tmux.until("the code on the agent's row", |s| {
            s.lines()
                .any(|l| l.contains("link") && l.contains("unreachable · socket-not-private"))
        });
        let screen = tmux.screen();
        assert_eq!(screen.matches(&failed).count(), 1, "{screen}");
        assert!(!screen.contains("Not connected"), "{screen}");
    }
}

/// The pids of a process's children, from /proc.
fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(
            list.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    found
}

/// The demo notices its own agent died (`kill -9`): it starts it again with its state kept,
/// as `--restart-every` does, and its log says why, with the exit status.
#[test]
fn the_demo_starts_its_agent_again_when_it_dies() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let (home, _runtime, command) = demo_home("demo --speed 0");
    let tmux = Tmux::start("demo-heal", (100, 30), &command);
    tmux.until("the inbox", |s| s.contains("Needs your answer (4)"));
    let out = tmux.run(&["display-message", "-p", "-t", &tmux.session, "#{pane_pid}"]);
    let phone: u32 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("the phone's pid");
    let agents = children(phone);
    assert_eq!(agents.len(), 1, "one agent: {agents:?}");
    // SAFETY: a signal to the demo's own agent, a child of the phone this test started.
    unsafe {
        libc::kill(i32::try_from(agents[0]).expect("a pid"), libc::SIGKILL);
    }
    // The screen says it stopped, with its exit status, and that it is started again.
    tmux.until("the stop told on Home", |s| {
        s.contains("The demo's agent stopped (killed by signal 9)")
    });
    tmux.until("a new agent process", |_| {
        let now = children(phone);
        now.len() == 1 && now[0] != agents[0]
    });
    tmux.until("ready again", |s| {
        !s.contains("nreachable")
            && s.contains("Needs your answer (4)")
            && s.contains("was started again with its state kept")
    });
    let log = std::fs::read_to_string(home.path().join("state/collie-phone/phone.log"))
        .unwrap_or_default();
    assert!(
        log.contains("the demo's agent stopped on its own (signal: 9 (SIGKILL))"),
        "{log}"
    );
}

/// A headless command given no agent reaches the demo the same person runs, and says so on
/// stderr with how to name it.
#[test]
fn a_headless_command_with_no_agent_finds_the_running_demo() {
    if !tmux_installed() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let (home, runtime, command) = demo_home("demo --speed 0");
    let tmux = Tmux::start("demo-found", (100, 30), &command);
    tmux.until("the inbox", |s| s.contains("Needs your answer (4)"));
    let output = std::process::Command::new(BIN)
        .args(["asks", "--json"])
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .output()
        .expect("the binary runs");
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains("reaching the demo you are running, at")
            && said.contains(&format!("--socket {}", runtime.display())),
        "{said}"
    );
    let listed = String::from_utf8_lossy(&output.stdout);
    assert!(listed.contains("Deploy settings"), "{listed}");
    // The help names the socket, and a command given that path reaches the demo.
    tmux.keys(&["?"]);
    tmux.until("the socket in the help", |s| {
        s.contains("Headless commands reach this demo's agent with")
    });
    let folder = std::fs::read_dir(&runtime)
        .expect("the runtime folder")
        .flatten()
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("collie-phone-demo-")
        })
        .expect("the demo's folder");
    let socket = folder.path().join("agent.sock");
    // The help's box, its lines joined: the path may wrap.
    let screen: String = tmux
        .screen()
        .lines()
        .filter_map(|l| Some(l.split('│').nth(1)?.trim().to_string()))
        .collect();
    assert!(
        screen.contains(&format!("--socket{}", socket.display())),
        "{screen}"
    );
    let named = std::process::Command::new(BIN)
        .args(["asks", "--json", "--socket"])
        .arg(&socket)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .output()
        .expect("the binary runs");
    assert_eq!(
        named.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&named.stderr)
    );
    assert!(String::from_utf8_lossy(&named.stdout).contains("Deploy settings"));
}
