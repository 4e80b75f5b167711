//! The real OpenSSH server on a loopback port, as the current user, in a folder of its own: a
//! host key, a user key, `authorized_keys`, and an ssh client config that reaches it as the
//! host `testbox` (docs/REMOTE.md). Used by tests/integration/ssh_remote.rs.
//!
//! `.ci/run` installs openssh-server when it is missing and sets `COLLIE_SSHD=required`; where
//! sshd is not installed and not required, the tests say so and skip.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SSHD: &str = "/usr/sbin/sshd";

/// A running sshd, killed when dropped.
pub struct Sshd {
    pub dir: tempfile::TempDir,
    pub port: u16,
    child: Child,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether the tests can run sshd here; says why not on stderr when they cannot.
pub fn sshd_installed(test: &str) -> bool {
    if Path::new(SSHD).exists() && Path::new("/usr/bin/ssh-keygen").exists() {
        return true;
    }
    assert!(
        std::env::var("COLLIE_SSHD").as_deref() != Ok("required"),
        "{SSHD} is not installed: install openssh-server (bash .ci/run does)"
    );
    eprintln!("SKIPPED {test}: {SSHD} is not installed (apt-get install openssh-server)");
    false
}

fn keygen(path: &Path) {
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "collie-test", "-f"])
        .arg(path)
        .output()
        .expect("ssh-keygen runs");
    assert!(out.status.success(), "ssh-keygen: {out:?}");
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    listener.local_addr().expect("its address").port()
}

fn user() -> String {
    let out = Command::new("id").arg("-un").output().expect("id runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

impl Sshd {
    /// Starts sshd with a new host key, one authorised user key (`id`), and a second key
    /// (`stranger`) it does not know.
    pub fn start() -> Self {
        let dir = super::temp_dir();
        let at = |name: &str| dir.path().join(name);
        keygen(&at("host_key"));
        keygen(&at("id"));
        keygen(&at("stranger"));
        std::fs::copy(at("id.pub"), at("authorized_keys")).expect("authorized_keys");
        // sshd run as root wants its privilege separation folder, which a machine without a
        // running sshd may not have.
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            std::fs::create_dir_all("/run/sshd").expect("/run/sshd");
        }
        let port = free_port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\n\
             PidFile {}\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
             AllowStreamLocalForwarding yes\nLogLevel VERBOSE\n",
            at("host_key").display(),
            at("authorized_keys").display(),
            at("sshd.pid").display(),
        );
        std::fs::write(at("sshd_config"), config).expect("sshd_config");
        let host_key = std::fs::read_to_string(at("host_key.pub")).expect("the host key");
        let host_key: Vec<&str> = host_key.split_whitespace().take(2).collect();
        std::fs::write(
            at("known_hosts"),
            format!("[127.0.0.1]:{port} {}\n", host_key.join(" ")),
        )
        .expect("known_hosts");
        std::fs::write(at("no_known_hosts"), "").expect("an empty known_hosts");
        let mut child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(at("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sshd starts");
        let stderr = child.stderr.take().expect("sshd's stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let line = rx
                .recv_timeout(until.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("sshd did not say it listens on {port}"));
            if line.contains("Server listening on 127.0.0.1") {
                break;
            }
        }
        Self { dir, port, child }
    }

    /// An ssh client config naming this server `testbox`, with `key` and `known_hosts` (file
    /// names in the folder), so `ssh -F CONFIG testbox` logs in.
    pub fn client_config(&self, key: &str, known_hosts: &str) -> PathBuf {
        let at = |name: &str| self.dir.path().join(name);
        let path = at(&format!("ssh_config-{key}-{known_hosts}"));
        let config = format!(
            "Host testbox\n  HostName 127.0.0.1\n  Port {}\n  User {}\n  IdentityFile {}\n  \
             IdentitiesOnly yes\n  UserKnownHostsFile {}\n  StrictHostKeyChecking yes\n  \
             GlobalKnownHostsFile /dev/null\n",
            self.port,
            user(),
            at(key).display(),
            at(known_hosts).display(),
        );
        std::fs::write(&path, config).expect("an ssh client config");
        path
    }

    /// `COLLIE_SSH_COMMAND` for the phone: ssh with that client config.
    pub fn ssh_command(&self, key: &str, known_hosts: &str) -> String {
        format!("ssh -F {}", self.client_config(key, known_hosts).display())
    }
}
