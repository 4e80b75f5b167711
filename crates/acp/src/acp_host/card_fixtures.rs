//! Permission cards from the adapters' own requests (tests/fixtures/acp/): each fixture is played
//! through a pane's stream and the permission card as the host plays them, so a card reads as
//! docs/ACP.md's table of tools says ("Permission requests"), whichever agent asked. Tests only:
//! they need both halves of the host, which neither half's own tests reach.

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionNotification};
    use serde_json::Value;
    use time::OffsetDateTime;

    use crate::acp_host::permission::{PermissionCard, card};
    use crate::acp_host::stream::Stream;
    use crate::wire::tool_input;

    fn t0() -> OffsetDateTime {
        time::macros::datetime!(2026-01-02 03:04:05 UTC)
    }

    /// The cards of a fixture's `session/request_permission`s, each filled from the
    /// `session/update`s before it, as the host fills them.
    fn fixture_cards(fixture: &str) -> Vec<PermissionCard> {
        let mut world =
            crate::rigs::worlds::build(crate::rigs::WorldKind::Demo, 1, true, "h", t0());
        let pane = world.layout.panes.keys().next().expect("a pane").clone();
        let mut stream = Stream::default();
        let mut cards = Vec::new();
        for line in fixture.lines().filter(|l| !l.trim().is_empty()) {
            let message: Value = serde_json::from_str(line).expect("json");
            match message["method"].as_str() {
                Some("session/update") => {
                    let notification: SessionNotification =
                        serde_json::from_value(message["params"].clone()).expect("an update");
                    stream.apply(&mut world, &pane, notification.update, t0());
                }
                Some("session/request_permission") => {
                    let mut request: RequestPermissionRequest =
                        serde_json::from_value(message["params"].clone()).expect("a request");
                    stream.fill_permission(&mut request.tool_call);
                    cards.push(card(&request));
                }
                other => panic!("not a line of a permission fixture: {other:?}"),
            }
        }
        cards
    }

    /// The cards' first lines, each of at most 80 columns (docs/ACP.md, "Permission requests").
    fn titles(cards: &[PermissionCard]) -> Vec<String> {
        let titles: Vec<String> = cards.iter().map(|c| c.ask.title.clone()).collect();
        for title in &titles {
            let columns = unicode_width::UnicodeWidthStr::width(title.as_str());
            assert!(
                columns <= tool_input::TITLE_COLUMNS,
                "{title}: {columns} columns"
            );
        }
        titles
    }

    #[test]
    fn a10_claude_code_acps_asks_take_their_kind_from_the_tool_call_before_them() {
        let cards = fixture_cards(include_str!(
            "../../../../tests/fixtures/acp/claude-code-acp-0.16.2-permissions.jsonl"
        ));
        assert_eq!(
            titles(&cards),
            [
                "execute: touch proof.txt",
                "edit: /home/me/app/notes.md",
                "edit: /home/me/app/src/main.rs",
                "MultiEdit: /home/me/app/src/lib.rs",
                "read: /etc/hosts",
                "fetch: https://example.com/docs",
                "search: **/*.rs in src",
                "search: fn main in src",
                "mcp: github · create_issue",
            ]
        );
        let bash = cards[0].ask.permission.as_ref().expect("a permission body");
        assert_eq!(bash.tool, "execute");
        assert_eq!(
            bash.arguments["title"], "`touch proof.txt`",
            "the agent's title stays as data"
        );
    }

    #[test]
    fn an_ask_without_input_takes_the_input_of_its_tool_call_and_its_own_words_win() {
        let fixture = concat!(
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Terminal","kind":"execute","status":"pending","rawInput":{"command":"make"}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s-1","toolCall":{"toolCallId":"c1"},"options":[]}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"s-1","toolCall":{"toolCallId":"c1","kind":"read","rawInput":{"command":"cat x"}},"options":[]}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s-1","toolCall":{"toolCallId":"other","rawInput":{"command":"ls"}},"options":[]}}"#,
        );
        assert_eq!(
            titles(&fixture_cards(fixture)),
            ["execute: make", "read: cat x", "tool: ls"]
        );
    }

    #[test]
    fn a10_codex_acps_asks_lead_with_the_command_and_the_files() {
        let cards = fixture_cards(include_str!(
            "../../../../tests/fixtures/acp/codex-acp-0.13.0-permissions.jsonl"
        ));
        assert_eq!(
            titles(&cards),
            [
                "execute: touch proof.txt",
                // In the agent's order: the ACP crate keeps a JSON object's order.
                "edit: /home/me/app/src/main.rs, /home/me/app/NOTES.md",
            ]
        );
    }

    /// The real adapters' requests, captured live (tests/fixtures/acp/real/README.md): each
    /// card's first line, and the readable body its arguments make on the phone.
    #[test]
    fn a10_the_real_adapters_asks_read_as_a_command_or_the_files_and_a_diff() {
        let real = [
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/codex-acp-0.16.0-exec-command.jsonl"
                ),
                "execute: touch proof.txt",
            ),
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/codex-acp-0.16.0-apply-patch.jsonl"
                ),
                "edit: /tmp/disc/codex/ws/hello.txt",
            ),
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/claude-code-acp-0.16.2-write.jsonl"
                ),
                "edit: /tmp/disc/claude/ws/notes.md",
            ),
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/claude-code-acp-0.16.2-edit.jsonl"
                ),
                "edit: /tmp/disc/claude/ws/notes.md",
            ),
        ];
        let gemini = [
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/gemini-cli-0.61.0-run-shell-command.jsonl"
                ),
                // Its command is only in its title, which a card's first line never reads
                // (SPEC A10): the body shows it as the `title` row.
                "execute",
            ),
            (
                include_str!(
                    "../../../../tests/fixtures/acp/real/gemini-cli-0.61.0-write-file.jsonl"
                ),
                "edit: /tmp/cp-Qz0Ac1/workspace/notes.md",
            ),
        ];
        for (fixture, first_line) in gemini {
            assert_eq!(titles(&fixture_cards(fixture)), [first_line]);
        }
        let write = fixture_cards(gemini[1].0)[0]
            .ask
            .permission
            .clone()
            .expect("a body");
        let diff = tool_input::readable(&write.arguments)
            .diff
            .unwrap_or_default();
        assert!(
            diff.ends_with("@@ -0,0 +1 @@\n+made by the scripted model\n"),
            "{diff}"
        );
        let mut bodies = Vec::new();
        for (fixture, first_line) in real {
            let cards = fixture_cards(fixture);
            assert_eq!(titles(&cards), [first_line]);
            let body = cards[0].ask.permission.clone().expect("a permission body");
            bodies.push(tool_input::readable(&body.arguments));
        }
        assert_eq!(bodies[0].command.as_deref(), Some("touch proof.txt"));
        let diff = |i: usize| bodies[i].diff.clone().unwrap_or_default();
        assert!(diff(1).ends_with("@@ -0,0 +1 @@\n+hello\n"), "{}", diff(1));
        assert!(
            diff(2).ends_with("@@ -0,0 +1,2 @@\n+# Notes\n+first line\n"),
            "{}",
            diff(2)
        );
        assert!(
            diff(3).ends_with("@@ -1 +1 @@\n-first line\n+second line\n"),
            "{}",
            diff(3)
        );
    }
}
