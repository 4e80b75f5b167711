//! `collie-phone agent --tls auto` and the phone's `--pin` (SPEC T10), all real parts: the agent
//! binary makes its certificate, prints the phone command, and a headless phone command run as
//! printed reaches it; a restart keeps the pin; another host's certificate, and a CA certificate
//! such as `openssl req -x509` makes, are refused in words that say what to do.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use crate::common::{AgentProcess, BIN, auto_agent, temp_dir, token_file};

/// The headless commands' exit code for "unreachable" (docs/SCRIPTING.md).
const UNREACHABLE: i32 = 8;

fn phone(home: &Path, args: &[&str]) -> Output {
    std::process::Command::new(BIN)
        .args(args)
        .env_remove("COLLIE_DURABLE_SOCKET")
        .env_remove("COLLIE_DURABLE_TOKEN")
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("phone-state"))
        .output()
        .expect("the binary runs")
}

fn asks(home: &Path, dial: &[String]) -> Output {
    let mut args = vec!["asks"];
    args.extend(dial.iter().map(String::as_str));
    args.extend(["--wait", "3"]);
    phone(home, &args)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn t10_tls_auto_prints_a_phone_command_whose_pin_reaches_it_and_a_restart_keeps_the_pin() {
    let home = temp_dir();
    let (token, _) = token_file(home.path());
    let state = home.path().join("state");
    let mut first = auto_agent(&state, &token);
    assert!(
        first
            .certificate
            .contains(": made now; for 127.0.0.1, ::1, localhost"),
        "{}",
        first.certificate
    );
    assert!(
        first.certificate.ends_with(&first.pin),
        "{}",
        first.certificate
    );
    assert_eq!(mode(&state.join("tls")), 0o700);
    assert_eq!(mode(&state.join("tls").join("key.pem")), 0o600);
    let reached = asks(home.path(), &first.dial);
    assert_eq!(
        reached.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&reached.stderr)
    );
    assert!(String::from_utf8_lossy(&reached.stdout).contains("permission"));
    // The pin is read in lower case and without colons too.
    let mut bare = first.dial.clone();
    let at = bare.len() - 1;
    bare[at] = format!("sha256:{}", first.pin[7..].replace(':', "").to_lowercase());
    assert_eq!(asks(home.path(), &bare).status.code(), Some(0));

    first.process.stop(false);
    let again = auto_agent(&state, &token);
    assert!(
        again.certificate.contains(
            ": kept from the last start (the pin is unchanged); for 127.0.0.1, ::1, localhost"
        ),
        "{}",
        again.certificate
    );
    assert_eq!(again.pin, first.pin);
    assert_eq!(asks(home.path(), &again.dial).status.code(), Some(0));

    // Without its key the certificate is made again, and the start says so and why.
    let mut again = again;
    again.process.stop(false);
    std::fs::remove_file(state.join("tls").join("key.pem")).expect("remove the key");
    let remade = auto_agent(&state, &token);
    assert!(
        remade.certificate.contains(&format!(
            ": made again because {} was missing (a new pin: phones need the new command); for 127.0.0.1",
            state.join("tls").join("key.pem").display()
        )),
        "{}",
        remade.certificate
    );
    assert_ne!(remade.pin, first.pin);
    assert_eq!(mode(&state.join("tls").join("key.pem")), 0o600);
    let stale = asks(
        home.path(),
        &first
            .dial
            .iter()
            .map(|word| word.replace(&first.process.url, &remade.process.url))
            .collect::<Vec<_>>(),
    );
    assert_eq!(stale.status.code(), Some(UNREACHABLE));
}

#[test]
fn t10_another_hosts_certificate_is_refused_naming_both_fingerprints() {
    let home = temp_dir();
    let (token, _) = token_file(home.path());
    let ours = auto_agent(&home.path().join("ours"), &token);
    let theirs = auto_agent(&home.path().join("theirs"), &token);
    assert_ne!(ours.pin, theirs.pin);
    let mut dial = theirs.dial.clone();
    let at = dial.len() - 1;
    dial[at] = ours.pin.clone();
    let refused = asks(home.path(), &dial);
    assert_eq!(refused.status.code(), Some(UNREACHABLE));
    let said = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(
        said.contains(&format!(
            "the agent's certificate is not trusted (it is {}, not the pinned {}): if the certificate was remade on the host, copy the new phone command the agent printed when it started",
            theirs.pin, ours.pin
        )),
        "{said}"
    );
    let mut args = vec!["doctor"];
    args.extend(dial.iter().map(String::as_str));
    let doctor = phone(home.path(), &args);
    let shown = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert!(
        shown.contains(&format!(
            "✗ pin                   the agent's certificate is not trusted (it is {}",
            theirs.pin
        )),
        "{shown}"
    );
    let mut args = vec!["doctor"];
    args.extend(ours.dial.iter().map(String::as_str));
    let doctor = phone(home.path(), &args);
    let shown = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert!(
        shown.contains(&format!(
            "✓ pin                   the agent showed the pinned certificate {}",
            ours.pin
        )),
        "{shown}"
    );
    assert_eq!(doctor.status.code(), Some(0), "{shown}");
}

/// A certificate as most guides make it, `openssl req -x509` with basicConstraints CA:TRUE: the
/// real command when openssl is here, else the same shape from rcgen.
fn ca_certificate(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    let made = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ])
        .output();
    if !made.is_ok_and(|out| out.status.success()) {
        eprintln!("no openssl here: the CA certificate is made with rcgen instead");
        let mut params =
            rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).expect("params");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let signing = rcgen::KeyPair::generate().expect("a key");
        let certified = params.self_signed(&signing).expect("a certificate");
        std::fs::write(&cert, certified.pem()).expect("write");
        std::fs::write(&key, signing.serialize_pem()).expect("write");
    }
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    (cert, key)
}

#[test]
fn t10_a_ca_certificate_as_the_agents_own_is_refused_saying_how_to_make_one_that_works() {
    let home = temp_dir();
    let (token, _) = token_file(home.path());
    let (cert, key) = ca_certificate(home.path());
    let agent = AgentProcess::start(&[
        "agent",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token.to_str().expect("utf-8"),
        "--tls-cert",
        cert.to_str().expect("utf-8"),
        "--tls-key",
        key.to_str().expect("utf-8"),
        "--speed",
        "0",
    ]);
    let token = token.to_str().expect("utf-8").to_string();
    let cert = cert.to_str().expect("utf-8").to_string();
    for trust in [vec![], vec!["--ca-cert".to_string(), cert.clone()]] {
        let mut dial = vec![
            "--url".to_string(),
            agent.url.clone(),
            "--token-file".to_string(),
            token.clone(),
        ];
        dial.extend(trust);
        let refused = asks(home.path(), &dial);
        assert_eq!(refused.status.code(), Some(UNREACHABLE));
        let said = String::from_utf8_lossy(&refused.stderr).into_owned();
        assert!(
            said.contains("the agent's certificate is not trusted (it is a CA certificate (basicConstraints CA:TRUE), which may sign others but cannot be a server's own): give the agent a certificate that is not a CA: `openssl req -x509` makes a CA one unless you add `-addext basicConstraints=critical,CA:FALSE`; or start the agent with `--tls auto`"),
            "{said}"
        );
        assert!(!said.contains("CaUsedAsEndEntity"), "{said}");
    }
}
