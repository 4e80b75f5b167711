//! A person's tokens and files stay theirs (SPEC S8, S9, T11, T12), proved with a second user
//! on this machine: `nobody` (uid 65534) holds a port or owns a planted folder, as another
//! account would. Making a socket or a file as that user needs root (the tests run as root in
//! CI); without it each test says so and checks nothing.

use crate::common;

use std::io::Read;
use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use collie_phone::engine::{AgentChange, FromEngine};
use common::BIN;
use common::engine_phone::EnginePhone;

/// The other user: the one every Linux machine has.
const NOBODY: u32 = 65534;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A loopback listener whose socket belongs to `uid` (the kernel records the creating thread's
/// fs uid), with a count of the bytes that reached it.
fn listener_of(uid: u32) -> (u16, Arc<AtomicUsize>) {
    let listener = std::thread::spawn(move || {
        // SAFETY: setfsuid changes only this thread's fs uid; it is put back before the
        // thread ends, and the thread does nothing else.
        unsafe { libc::setfsuid(uid) };
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        unsafe { libc::setfsuid(0) };
        listener
    })
    .join()
    .expect("the listener's thread");
    let port = listener.local_addr().expect("its address").port();
    let received = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&received);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let mut buffer = [0_u8; 4096];
            while let Ok(n) = stream.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                count.fetch_add(n, Ordering::SeqCst);
            }
        }
    });
    (port, received)
}

fn token_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("work.token");
    std::fs::write(&path, "w".repeat(40)).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    path
}

/// `collie-phone ARGS` with the config and state in `dir`, nothing on stdin.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env_remove("COLLIE_DURABLE_TOKEN")
        .env_remove("COLLIE_DURABLE_SOCKET")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// SPEC T11: `http://127.0.0.1:PORT` held by another user gets no token, and the person is told
/// whose the port is.
#[test]
fn t11_a_port_another_user_holds_gets_no_token() {
    if !is_root() {
        eprintln!("skipped: a socket of another user needs root");
        return;
    }
    let dir = common::temp_dir();
    let token = token_file(dir.path());
    let (port, received) = listener_of(NOBODY);
    let url = format!("http://127.0.0.1:{port}");
    let output = run_in(
        dir.path(),
        &[
            "asks",
            "--url",
            &url,
            "--token-file",
            token.to_str().expect("utf-8"),
        ],
    );
    let text = said(&output);
    assert!(
        text.contains(&format!(
            "port {port} is held by another user, nobody (uid {NOBODY})"
        )) && text.contains("the token was not sent"),
        "{text}"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        received.load(Ordering::SeqCst),
        0,
        "nothing reached the port"
    );
}

/// SPEC T11, for the DSH bridge (loopback by its protocol): the engine asks nothing of a
/// bridge port another user holds, and says whose it is.
#[tokio::test]
async fn t11_a_bridge_port_another_user_holds_gets_no_token() {
    if !is_root() {
        eprintln!("skipped: a socket of another user needs root");
        return;
    }
    let (port, received) = listener_of(NOBODY);
    let url = format!("http://127.0.0.1:{port}/codex-bridge");
    let mut phone = EnginePhone::start(&url, &"d".repeat(40));
    phone
        .until("the port's owner told", |seen| {
            seen.iter().any(|u| {
                matches!(u, FromEngine::Agent { change: AgentChange::Status(s), .. }
                    if s.sentence().contains("held by another user, nobody"))
            })
        })
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        received.load(Ordering::SeqCst),
        0,
        "nothing reached the port"
    );
}

/// SPEC S9: a config someone else wrote (a folder they made first) is not read: it could name
/// an agent of theirs with the person's token file, or a command to run as the person.
#[test]
fn s9_a_config_someone_else_wrote_is_not_read() {
    if !is_root() {
        eprintln!("skipped: a file of another user needs root");
        return;
    }
    let dir = common::temp_dir();
    let folder = dir.path().join("config").join("collie-phone");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let config = folder.join("config.toml");
    std::fs::write(
        &config,
        "[agents.work]\nurl = \"http://127.0.0.1:9\"\ntoken-file = \"/root/work.token\"\n",
    )
    .expect("write");
    std::os::unix::fs::chown(&config, Some(NOBODY), Some(NOBODY)).expect("chown");
    let output = run_in(dir.path(), &["asks"]);
    let text = said(&output);
    assert!(
        text.contains("the config file is not read")
            && text.contains(&format!("is owned by uid {NOBODY} (nobody), not by you")),
        "{text}"
    );
    assert!(!output.status.success());
}

/// SPEC S8: a state folder someone else made first is not used, and nothing is written in it.
#[test]
fn s8_a_state_folder_someone_else_made_is_not_used() {
    if !is_root() {
        eprintln!("skipped: a folder of another user needs root");
        return;
    }
    let dir = common::temp_dir();
    let state = dir.path().join("state").join("collie-phone");
    std::fs::create_dir_all(&state).expect("mkdir");
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    std::os::unix::fs::chown(&state, Some(NOBODY), Some(NOBODY)).expect("chown");
    let output = run_in(
        dir.path(),
        &[
            "send",
            "--socket",
            "/nonexistent/collie.sock",
            "p1",
            "hello",
        ],
    );
    let text = said(&output);
    assert!(
        text.contains(&format!("{}: is owned by uid {NOBODY}", state.display())),
        "{text}"
    );
    let left: Vec<_> = std::fs::read_dir(&state).expect("read").collect();
    assert!(left.is_empty(), "nothing written in it: {left:?}");
}

/// SPEC S8: with HOME unset the home is the password database's, never the temp folder. Run as
/// a throwaway user made for the test, whose home is a fresh folder.
#[test]
fn s8_without_home_the_state_lives_in_the_home_of_the_password_database() {
    if !is_root() || !Path::new("/usr/sbin/useradd").exists() {
        eprintln!("skipped: a throwaway user needs root and useradd");
        return;
    }
    let dir = common::temp_dir();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // The binary where the throwaway user can run it, whatever the checkout's folder allows.
    let binary = dir.path().join("collie-phone");
    std::fs::copy(BIN, &binary).expect("copy");
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let name = format!("collie-t{}", std::process::id() % 100_000);
    let home = dir.path().join("home");
    let made = Command::new("/usr/sbin/useradd")
        .args([
            "-M",
            "-d",
            home.to_str().expect("utf-8"),
            "-s",
            "/bin/sh",
            &name,
        ])
        .status()
        .expect("useradd");
    assert!(made.success(), "useradd {name}");
    struct Gone(String);
    impl Drop for Gone {
        fn drop(&mut self) {
            let _ = Command::new("/usr/sbin/userdel").arg(&self.0).status();
        }
    }
    let _gone = Gone(name.clone());
    std::fs::create_dir(&home).expect("mkdir");
    let id = Command::new("id").args(["-u", &name]).output().expect("id");
    let uid: u32 = String::from_utf8_lossy(&id.stdout)
        .trim()
        .parse()
        .expect("a uid");
    std::os::unix::fs::chown(&home, Some(uid), Some(uid)).expect("chown");
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let temp_state = std::env::temp_dir().join("collie-phone");
    let temp_had = temp_state.exists();
    let output = {
        use std::os::unix::process::CommandExt;
        Command::new(&binary)
            .args([
                "send",
                "--socket",
                "/nonexistent/collie.sock",
                "p1",
                "hello",
            ])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .uid(uid)
            .gid(uid)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs")
    };
    let journal = home.join(".local/state/collie-phone/intents.jsonl");
    assert!(
        journal.exists(),
        "the journal in the home: {}",
        said(&output)
    );
    let meta = journal.metadata().expect("meta");
    assert_eq!((meta.uid(), meta.mode() & 0o777), (uid, 0o600));
    let folder = journal.parent().expect("folder").metadata().expect("meta");
    assert_eq!(folder.mode() & 0o777, 0o700);
    assert!(
        temp_had || !temp_state.exists(),
        "nothing made in the temp folder"
    );
}

/// SPEC S9: `check --acp` keeps the agent's stderr (an API key, say) in a folder of its own,
/// 0700 under a random name, the log 0600, and the report names it.
#[test]
fn s9_check_acp_keeps_its_log_private_and_names_it() {
    let dir = common::temp_dir();
    let agent = dir.path().join("agent.sh");
    std::fs::write(
        &agent,
        "#!/bin/sh\necho 'OPENAI_API_KEY=sk-not-for-others' >&2\nread line\nexit 3\n",
    )
    .expect("write");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let output = Command::new(BIN)
        .args(["check", "--acp", agent.to_str().expect("utf-8")])
        .env("XDG_CONFIG_HOME", "/nonexistent-collie-check")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    let text = said(&output);
    let log = text
        .split("its stderr is in ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("the report names the log: {text}"));
    let log = Path::new(log);
    let folder = log.parent().expect("its folder");
    let name = folder.file_name().expect("a name").to_string_lossy();
    assert!(name.starts_with("collie-check-acp-"), "{name}");
    assert_eq!(folder.metadata().expect("meta").mode() & 0o777, 0o700);
    assert_eq!(log.metadata().expect("meta").mode() & 0o777, 0o600);
    let kept = std::fs::read_to_string(log).expect("the log");
    assert!(kept.contains("sk-not-for-others"), "{kept}");
    assert!(!folder.join("workspace").exists(), "the workspace went");
    std::fs::remove_dir_all(folder).expect("clean up");
}
