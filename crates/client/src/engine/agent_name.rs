//! The name an agent gets when the person gave only its socket or URL.

/// A short name for an agent given by path or URL: a path's last part (`/tmp/x/agent.sock` →
/// `agent`), a URL's host (`https://agent.example:8443/x` → `agent.example`), never its port.
pub fn short_name(text: &str) -> String {
    if let Some(host) = url_host(text) {
        return host;
    }
    let trimmed = text.trim_end_matches('/');
    let last = trimmed
        .rsplit(['/', ':'])
        .find(|p| !p.is_empty())
        .unwrap_or(trimmed);
    last.trim_end_matches(".sock").to_string()
}

/// The host of `scheme://[user@]host[:port][/path]`, brackets kept off an IPv6 address.
fn url_host(text: &str) -> Option<String> {
    let (_, rest) = text.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        authority.split(':').next().unwrap_or_default()
    };
    (!host.is_empty()).then(|| host.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_paths() {
        assert_eq!(short_name("/tmp/x/agent.sock"), "agent");
        assert_eq!(short_name("https://agent.example/"), "agent.example");
    }

    #[test]
    fn a_url_is_named_by_its_host_not_its_port_or_path() {
        assert_eq!(short_name("https://127.0.0.1:1"), "127.0.0.1");
        assert_eq!(short_name("https://agent.example:8443/x/"), "agent.example");
        assert_eq!(short_name("http://localhost:8080/a/b"), "localhost");
        assert_eq!(short_name("https://[::1]:9000/"), "::1");
    }
}
