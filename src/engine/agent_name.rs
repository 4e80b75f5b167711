//! The name an agent gets when the person gave only its socket or URL.

/// A short name for an agent given by path or URL: its last meaningful part
/// (`/tmp/x/agent.sock` → `agent`, `https://agent.example/` → `agent.example`).
pub(crate) fn short_name(text: &str) -> String {
    let trimmed = text.trim_end_matches('/');
    let last = trimmed
        .rsplit(['/', ':'])
        .find(|p| !p.is_empty())
        .unwrap_or(trimmed);
    last.trim_end_matches(".sock").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_paths() {
        assert_eq!(short_name("/tmp/x/agent.sock"), "agent");
        assert_eq!(short_name("https://agent.example/"), "agent.example");
    }
}
