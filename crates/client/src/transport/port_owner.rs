//! SPEC T11: before a token goes over plain HTTP to a port of this machine (a local test agent,
//! the DSH bridge), the port's listener is checked to be the caller's, as a socket's peer is
//! (S3). The check runs as each connection is made ([`CheckPortLayer`], under reqwest's
//! connector), off the async threads: reading the tables takes milliseconds, and a kept-alive
//! connection, checked when it was made, carries the next requests. A port is anyone's to take while the agent or bridge is not running, and plain HTTP
//! has no certificate to tell who answers; the kernel's socket tables do (Linux:
//! `/proc/net/tcp` and `/proc/net/tcp6`, the listener's uid). Where they cannot be read (not
//! Linux), nothing is known and the request goes as before; docs/REMOTE.md says so.

use std::net::IpAddr;

use super::own_files::user_name;
use super::privacy::current_uid;

/// The kernel's state number of a listening TCP socket in `/proc/net/tcp*`.
const LISTEN: &str = "0A";

/// A listener on a loopback port that is not the caller's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotYourPort {
    pub port: u16,
    pub uid: u32,
}

impl std::error::Error for NotYourPort {}

impl std::fmt::Display for NotYourPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = match user_name(self.uid) {
            Some(name) => format!("{name} (uid {})", self.uid),
            None => format!("uid {}", self.uid),
        };
        write!(
            f,
            "port {} is held by another user, {who}: the token was not sent. Start yours there, or check the URL's port",
            self.port
        )
    }
}

/// Refuses a plain `http://` URL to a loopback host whose port another user listens on.
/// Anything else (https, another host, a port nobody or only the caller holds) passes: over
/// https the certificate says who answers, and a port nobody holds takes no connection.
pub fn check_url(url: &reqwest::Url) -> Result<(), NotYourPort> {
    if url.scheme() != "http" {
        return Ok(());
    }
    let loopback = url.host_str().is_some_and(|host| {
        host.eq_ignore_ascii_case("localhost")
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    });
    match (loopback, url.port_or_known_default()) {
        (true, Some(port)) => check_port(port, current_uid()),
        _ => Ok(()),
    }
}

/// The refusal somewhere in an error's chain of sources, when a connection was refused for it.
pub fn refusal_in<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a NotYourPort> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(refused) = error.downcast_ref::<NotYourPort>() {
            return Some(refused);
        }
        next = error.source();
    }
    None
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A layer for reqwest's connector (`ClientBuilder::connector_layer`) of a client that dials
/// only `url`: before each new connection, the port's owner is checked ([`check_url`]).
#[derive(Clone)]
pub struct CheckPortLayer {
    url: reqwest::Url,
}

impl CheckPortLayer {
    /// None where nothing is to be checked (https, another host): no layer at all.
    pub fn for_url(url: &str) -> Option<Self> {
        let url = reqwest::Url::parse(url).ok()?;
        (url.scheme() == "http").then_some(Self { url })
    }
}

impl<S> tower::Layer<S> for CheckPortLayer {
    type Service = CheckPort<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CheckPort {
            inner,
            url: self.url.clone(),
        }
    }
}

/// The connector under [`CheckPortLayer`].
#[derive(Clone)]
pub struct CheckPort<S> {
    inner: S,
    url: reqwest::Url,
}

impl<S, R> tower::Service<R> for CheckPort<S>
where
    S: tower::Service<R, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send + 'static,
    R: Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<S::Response, BoxError>> + Send>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        // The service polled ready is the one called (tower's rule for a cloned inner).
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        let url = self.url.clone();
        Box::pin(async move {
            let checked = tokio::task::spawn_blocking(move || check_url(&url)).await;
            if let Ok(Err(refused)) = checked {
                return Err(Box::new(refused) as BoxError);
            }
            inner.call(request).await
        })
    }
}

/// The first listener on `port` (loopback or every address, v4 or v6) that is not `uid`'s.
fn check_port(port: u16, uid: u32) -> Result<(), NotYourPort> {
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        if let Some(owner) = foreign_listener(&text, port, uid) {
            return Err(NotYourPort { port, uid: owner });
        }
    }
    Ok(())
}

/// In one `/proc/net/tcp*` table: the uid of a listener on `port` that a loopback connection
/// could reach and that is not `uid`'s.
fn foreign_listener(table: &str, port: u16, uid: u32) -> Option<u32> {
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (local, state, owner) = (fields.get(1)?, fields.get(3)?, fields.get(7)?);
        if *state != LISTEN {
            return None;
        }
        let (address, listen_port) = local.split_once(':')?;
        if u16::from_str_radix(listen_port, 16).ok()? != port {
            return None;
        }
        // A v4-mapped v6 address (`::ffff:127.0.0.1`) is read as the v4 one it maps.
        let reachable = parse_address(address)
            .map(|ip| ip.to_canonical())
            .is_some_and(|ip| ip.is_loopback() || ip.is_unspecified());
        let owner: u32 = owner.parse().ok()?;
        (reachable && owner != uid).then_some(owner)
    })
}

/// An address as the kernel prints it: 8 hex digits for v4, 32 for v6, each 32-bit word in the
/// machine's byte order.
fn parse_address(hex: &str) -> Option<IpAddr> {
    let word = |i: usize| -> Option<[u8; 4]> {
        let value = u32::from_str_radix(hex.get(i * 8..i * 8 + 8)?, 16).ok()?;
        Some(value.to_ne_bytes())
    };
    match hex.len() {
        8 => Some(IpAddr::from(word(0)?)),
        32 => {
            let mut bytes = [0_u8; 16];
            for i in 0..4 {
                bytes[i * 4..i * 4 + 4].copy_from_slice(&word(i)?);
            }
            Some(IpAddr::from(bytes))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as a Linux kernel prints them (x86_64, little-endian): a listener of uid 1001 on
    /// 127.0.0.1:19387, one of uid 0 on 0.0.0.0:22, a connection (not listening) on 19387.
    const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:4BBB 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 1 1 0000000000000000 100 0 0 10 0
   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0000000000000000 100 0 0 10 0
   2: 0100007F:4BBB 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1001        0 3 1 0000000000000000 100 0 0 10 0
";
    /// A v6 listener of uid 1002 on [::1]:8080, one on [::]:9090 of uid 1000, one of uid 1003
    /// on ::ffff:127.0.0.1:7070.
    const TCP6: &str = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1002        0 4 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:2382 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:1B9E 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1003        0 6 1 0000000000000000 100 0 0 10 0
";

    #[test]
    #[cfg(target_endian = "little")]
    fn t11_a_listener_of_another_user_on_the_port_is_found() {
        assert_eq!(foreign_listener(TCP, 19387, 1000), Some(1001));
        assert_eq!(foreign_listener(TCP, 19387, 1001), None, "the caller's own");
        assert_eq!(
            foreign_listener(TCP, 22, 1000),
            Some(0),
            "every address reaches loopback"
        );
        assert_eq!(
            foreign_listener(TCP, 19388, 1000),
            None,
            "nobody listens there"
        );
        assert_eq!(foreign_listener(TCP6, 8080, 1000), Some(1002));
        assert_eq!(foreign_listener(TCP6, 9090, 1000), None);
        assert_eq!(
            foreign_listener(TCP6, 7070, 1000),
            Some(1003),
            "v4-mapped loopback"
        );
    }

    #[test]
    fn t11_only_plain_http_to_this_machine_is_checked() {
        let url = |text: &str| reqwest::Url::parse(text).expect("url");
        // No table holds a listener on port 1 for anyone but root, and over https or to
        // another host nothing is looked up at all.
        assert_eq!(check_url(&url("https://127.0.0.1:1/")), Ok(()));
        assert_eq!(check_url(&url("http://agent.example:1/")), Ok(()));
    }

    #[test]
    fn t11_the_refusal_names_the_port_and_its_holder() {
        let refusal = NotYourPort {
            port: 19387,
            uid: 0,
        }
        .to_string();
        assert!(
            refusal.starts_with("port 19387 is held by another user, root (uid 0): "),
            "{refusal}"
        );
        assert!(refusal.contains("the token was not sent"), "{refusal}");
    }
}
