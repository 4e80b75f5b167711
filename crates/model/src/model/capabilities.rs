//! What a peer can do, so a room asks "can this agent take a belt press" and never "is it a
//! bridge" (docs/ARCHITECTURE.md, "The model"). The engine already turns a DSH bridge into
//! Collie's shapes; what stays different is a set of yes and no, here, once. A third kind of
//! peer would be a third set.

/// The things one kind of peer can or cannot do, and how the phone names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Its panes have a tool belt (SPEC B1).
    pub belt: bool,
    /// Its panes have settings to switch (a mode, a model).
    pub settings: bool,
    /// It lists its own commands for the box (`/name`).
    pub slash_commands: bool,
    /// A message goes as one of several kinds with a send mode (docs/DSH.md).
    pub message_kinds: bool,
    /// Its workspaces and tabs can be renamed (as far as the agent itself allows, SPEC W).
    pub rename: bool,
    /// A pane is a task of its own: sending, stopping and closing are the task's (SPEC D2, D5).
    pub task_actions: bool,
    /// It closes tasks only: its workspaces and tabs stay where they live.
    pub closes_only_tasks: bool,
    /// `collie-phone doctor` can tell more of it when the phone cannot reach it.
    pub doctor: bool,
    /// Its asks may be a wait on the desktop, answered there, not on the phone.
    pub desktop_waits: bool,
    /// A Deny may carry words that go to the same pane next (SPEC A21): its messages are
    /// Collie sends.
    pub deny_with_words: bool,
    /// How a sentence names it: "The agent", "The bridge".
    pub noun: &'static str,
    /// What Home adds to its name, if anything.
    pub kind_label: Option<&'static str>,
}

/// A durable agent over the Collie wire (docs/WIRE.md).
pub const COLLIE: Capabilities = Capabilities {
    belt: true,
    settings: true,
    slash_commands: true,
    message_kinds: false,
    rename: true,
    task_actions: false,
    closes_only_tasks: false,
    doctor: true,
    desktop_waits: false,
    deny_with_words: true,
    noun: "The agent",
    kind_label: None,
};

/// The Codex ↔ DSH bridge (docs/DSH.md).
pub const DSH_BRIDGE: Capabilities = Capabilities {
    belt: false,
    settings: false,
    slash_commands: false,
    message_kinds: true,
    rename: false,
    task_actions: true,
    closes_only_tasks: true,
    doctor: false,
    desktop_waits: true,
    deny_with_words: false,
    noun: "The bridge",
    kind_label: Some("DSH bridge"),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_kinds_of_peer_differ_where_the_wires_do() {
        assert_ne!(COLLIE, DSH_BRIDGE);
        // What one has the other lacks, for every action that exists on one wire only.
        for (collie, bridge) in [
            (COLLIE.belt, DSH_BRIDGE.belt),
            (COLLIE.message_kinds, DSH_BRIDGE.message_kinds),
            (COLLIE.task_actions, DSH_BRIDGE.task_actions),
        ] {
            assert_ne!(collie, bridge);
        }
    }
}
