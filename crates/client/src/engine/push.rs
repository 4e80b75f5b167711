//! One run of the person's notify command (docs/CONFIG.md, "Rings"): an argv, never a shell,
//! with one JSON object on its stdin. It runs in a process group of its own and is ended, the
//! whole group, at its time limit, so a hung script or one of its children never piles up. Its
//! exit status and stderr go to the log; what went wrong comes back as one sentence for the
//! face to say once. The phone's runner and `watch --notify` both run it.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Most bytes of the command's stderr kept for the log.
const MAX_STDERR_BYTES: usize = 4096;

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Push {
    pub argv: Vec<String>,
    /// One JSON object and a newline, already cleaned.
    pub stdin: String,
    /// The longest one run may take.
    pub limit: Duration,
}

/// Why a run went wrong, said to the person once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushFailure {
    /// It could not be started (not found, not executable): `why` says which.
    NotStarted { program: String, why: String },
    /// It exited with a failure.
    Failed { program: String, status: String },
    /// It was still running at its limit and was ended.
    Hung { program: String, limit: Duration },
}

impl PushFailure {
    /// The sentence for the status line or stderr.
    pub fn sentence(&self) -> String {
        let line = |s: &str| crate::out::line(s).into_owned();
        match self {
            Self::NotStarted { program, why } => {
                format!(
                    "The notify command {} could not start: {why}.",
                    line(program)
                )
            }
            Self::Failed { program, status } => {
                format!("The notify command {} failed ({status}).", line(program))
            }
            Self::Hung { program, limit } => format!(
                "The notify command {} took over {} s and was ended.",
                line(program),
                limit.as_secs()
            ),
        }
    }
}

/// Runs `push` to its end or its limit.
pub async fn run(push: &Push) -> Result<(), PushFailure> {
    let Some((program, args)) = push.argv.split_first() else {
        return Ok(());
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = command.spawn().map_err(|error| {
        tracing::warn!(program, %error, "the notify command could not start");
        PushFailure::NotStarted {
            program: program.clone(),
            why: error.to_string(),
        }
    })?;
    let group = child.id();
    let mut stdin = child.stdin.take();
    let mut stderr = child.stderr.take();
    let input = push.stdin.clone();
    let ran = tokio::time::timeout(push.limit, async {
        if let Some(stdin) = stdin.as_mut() {
            // A command that reads nothing closes its end: that is its business.
            let _ = stdin.write_all(input.as_bytes()).await;
        }
        drop(stdin.take());
        let mut said = Vec::new();
        if let Some(stderr) = stderr.as_mut() {
            let _ = stderr
                .take(MAX_STDERR_BYTES as u64)
                .read_to_end(&mut said)
                .await;
        }
        (child.wait().await, said)
    })
    .await;
    match ran {
        Ok((status, said)) => {
            let said = crate::out::text(&String::from_utf8_lossy(&said)).into_owned();
            match status {
                Ok(status) if status.success() => {
                    tracing::info!(program, %status, stderr = %said, "the notify command ran");
                    Ok(())
                }
                Ok(status) => {
                    tracing::warn!(program, %status, stderr = %said, "the notify command failed");
                    Err(PushFailure::Failed {
                        program: program.clone(),
                        status: status.to_string(),
                    })
                }
                Err(error) => {
                    tracing::warn!(program, %error, "the notify command was lost");
                    Err(PushFailure::Failed {
                        program: program.clone(),
                        status: error.to_string(),
                    })
                }
            }
        }
        Err(_) => {
            if let Some(group) = group.and_then(|id| i32::try_from(id).ok()) {
                // SAFETY: a signal to the process group the child leads; it was made for it.
                unsafe {
                    libc::kill(-group, libc::SIGKILL);
                }
            }
            tracing::warn!(program, limit = ?push.limit, "the notify command hung and was ended");
            Err(PushFailure::Hung {
                program: program.clone(),
                limit: push.limit,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(argv: &[&str], limit: u64) -> Push {
        Push {
            argv: argv.iter().map(|s| s.to_string()).collect(),
            stdin: "{\"event\":\"new-ask\"}\n".into(),
            limit: Duration::from_secs(limit),
        }
    }

    #[tokio::test]
    async fn the_command_reads_the_json_on_its_stdin() {
        let dir = tempfile::tempdir().expect("a folder");
        let file = dir.path().join("got");
        let script = format!("cat > {}", file.display());
        run(&push(&["sh", "-c", &script], 10))
            .await
            .expect("it ran");
        let got = std::fs::read_to_string(&file).expect("written");
        assert_eq!(got, "{\"event\":\"new-ask\"}\n");
    }

    #[tokio::test]
    async fn a_command_that_hangs_is_ended_at_its_limit_with_its_children() {
        let dir = tempfile::tempdir().expect("a folder");
        let pid_file = dir.path().join("pid");
        // The child of the script holds stderr open: the run must not wait for it.
        let script = format!("sleep 300 & echo $! > {}; wait", pid_file.display());
        let failure = run(&push(&["sh", "-c", &script], 1)).await;
        assert_eq!(
            failure,
            Err(PushFailure::Hung {
                program: "sh".into(),
                limit: Duration::from_secs(1)
            })
        );
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .expect("the child's pid")
            .trim()
            .parse()
            .expect("a pid");
        // The group was sent SIGKILL: the sleep is gone (or a zombie of init's) soon.
        let mut gone = false;
        for _ in 0..100 {
            // SAFETY: signal 0 only asks whether the process is there.
            let alive = unsafe { libc::kill(pid, 0) } == 0;
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|stat| stat.contains(") Z"))
                .unwrap_or(true);
            if !alive || zombie {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(gone, "the hung command's child {pid} was ended too");
    }

    #[tokio::test]
    async fn a_missing_command_and_a_failing_one_say_so() {
        let missing = run(&push(&["/nonexistent/notify-me"], 5)).await;
        let Err(failure @ PushFailure::NotStarted { .. }) = missing else {
            panic!("not started: {missing:?}");
        };
        assert!(
            failure
                .sentence()
                .contains("/nonexistent/notify-me could not start")
        );
        let failed = run(&push(&["sh", "-c", "echo nope >&2; exit 3"], 5)).await;
        let Err(failure @ PushFailure::Failed { .. }) = failed else {
            panic!("failed: {failed:?}");
        };
        assert!(
            failure.sentence().contains("exit status: 3"),
            "{}",
            failure.sentence()
        );
    }
}
