//! An ACP session's `session/update`s as chat items of its pane.
//!
//! - agent message chunks → one `reply` item per message, growing as chunks arrive;
//! - thought chunks → one `thinking` item the same way; user message chunks → `user`;
//! - a tool call → a `notice` that follows its status, its text output → a `code` item, and a
//!   diff → a `code` item in unified diff form;
//! - a plan → one `markdown` item per turn, rewritten as the plan moves;
//! - available commands → every command of the pane, and its belt (the first 4);
//! - the mode and config options → the pane's settings (`super::settings`).
//!
//! Growth is written to the world at most once per host tick ([`Stream::flush`]), so a fast
//! agent costs its readers one event per message per tick, not one per chunk.
//!
//! ACP v2 keys its messages and plans by the agent's ids ([`Upsert`], from `super::v2`): one
//! item per message id and per plan id, made the first time and rewritten in place after, even
//! when other items came between; its tool calls are v1's `tool_call_update`, which is an
//! upsert by call id already.

use std::collections::HashMap;

use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, ContentBlock, Plan, PlanEntryStatus, SessionUpdate,
    ToolCall, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use time::OffsetDateTime;

use super::permission::tool_name;
use super::settings::Settings;
use super::text::{clean_line, clean_text, terminal_text};
use crate::durable::world::World;
use crate::wire::{AgentCommand, BeltButton, Item, ItemKind, limits, tool_input};

/// What a pane's stream is in the middle of.
#[derive(Debug, Default)]
pub(crate) struct Stream {
    growing: Option<Growing>,
    tools: HashMap<String, Tool>,
    /// Turns ended so far: a call is forgotten one turn after the turn it was seen in ended,
    /// so a late update to it still lands on its notice but the map does not grow forever.
    turns: usize,
    /// Calls shown so far.
    shown: usize,
    /// This turn's plan item.
    plan: Option<String>,
    /// Belt button id → the agent's command name.
    pub(crate) commands: Vec<(String, String)>,
    /// The session's modes and config options as the agent last said them.
    pub(crate) settings: Settings,
    /// ACP v2: each message id's item ([`Upsert`]).
    messages: HashMap<String, String>,
    /// ACP v2: each plan id's item.
    plans: HashMap<String, String>,
    /// ACP v2: each terminal id's item and the output it shows.
    terminals: HashMap<String, (String, String)>,
}

/// What a session told, in the stream's words: a v1 update, or an item keyed by the agent's
/// own id (ACP v2).
#[derive(Debug, Clone)]
pub(crate) enum Told {
    Update(Box<SessionUpdate>),
    Upsert(Upsert),
}

/// An item the agent keys by its own id (ACP v2's upserts, docs/ACP.md "ACP v1 and v2"): made
/// the first time the id is seen, rewritten in place after.
#[derive(Debug, Clone)]
pub(crate) enum Upsert {
    /// A whole message (`user_message`, `agent_message`, `agent_thought`): its item says what
    /// the content says now.
    Message {
        kind: ItemKind,
        id: String,
        content: Vec<ContentBlock>,
    },
    /// A chunk of one (`*_message_chunk`, which carries its `messageId`): added to its item.
    Chunk {
        kind: ItemKind,
        id: String,
        content: Box<ContentBlock>,
    },
    /// A plan by its `planId` (`plan_update`).
    Plan { id: String, plan: Plan },
    /// A file change of a tool call, as a unified diff (ACP v2's `diff`, its `git_patch`
    /// text): a `code` item in `diff`, shown once per call and text.
    Diff { call: String, text: String },
    /// The output of one of the agent's own terminals (display-only): `terminal_output_chunk`
    /// adds to it, a `terminal_update` with `output` replaces it. One `code` item per
    /// terminal id, capped as any item is (SPEC L1).
    Terminal {
        id: String,
        text: String,
        replace: bool,
    },
}

#[derive(Debug)]
struct Growing {
    kind: ItemKind,
    item_id: String,
    message_id: Option<String>,
    text: String,
    dirty: bool,
}

#[derive(Debug, Default)]
struct Tool {
    notice: String,
    tool: String,
    title: String,
    status: Status,
    /// The turn (by [`Stream::turns`]) it was last seen in.
    turn: usize,
    /// Its place among the calls shown (ids are not in order as text).
    shown: usize,
    output: Option<(String, String)>,
    diffs: Vec<(String, String)>,
    /// What the call said of itself as last seen, for a permission request that leaves it out
    /// ([`Stream::fill_permission`]).
    said: Said,
}

/// A call's kind, name and input as the agent last gave them.
#[derive(Debug, Default)]
struct Said {
    kind: Option<ToolKind>,
    name: Option<String>,
    /// The tool claude-code-acp names in the call's `_meta.claudeCode.toolName` (`MultiEdit`),
    /// for a card whose kind says nothing (`other`).
    claude_tool: Option<String>,
    raw_input: Option<serde_json::Value>,
}

impl Stream {
    /// Applies what a session told to the pane's items.
    pub(crate) fn tell(&mut self, world: &mut World, pane: &str, told: Told, now: OffsetDateTime) {
        match told {
            Told::Update(update) => self.apply(world, pane, *update, now),
            Told::Upsert(upsert) => self.upsert(world, pane, upsert, now),
        }
    }

    /// An item keyed by the agent's id: the item of that id is rewritten, or made.
    pub(crate) fn upsert(
        &mut self,
        world: &mut World,
        pane: &str,
        upsert: Upsert,
        now: OffsetDateTime,
    ) {
        match upsert {
            Upsert::Chunk { kind, id, content } => {
                let growing_it = self
                    .growing
                    .as_ref()
                    .is_some_and(|g| g.kind == kind && g.message_id.as_deref() == Some(&id));
                if !growing_it
                    && let Some(item_id) = self.messages.get(&id).cloned()
                    && let Some(text) = item_text(world, pane, &item_id)
                {
                    // Its message was interrupted (a tool call came between): it grows again.
                    self.flush(world, pane, now);
                    self.growing = Some(Growing {
                        kind: kind.clone(),
                        item_id,
                        message_id: Some(id.clone()),
                        text,
                        dirty: false,
                    });
                }
                self.chunk(world, pane, kind, Some(id.clone()), *content, now);
                if let Some(growing) = &self.growing
                    && growing.message_id.as_deref() == Some(&id)
                {
                    self.messages.insert(id, growing.item_id.clone());
                }
            }
            Upsert::Message { kind, id, content } => {
                let mut text = String::new();
                for block in content {
                    text.push_str(&block_text(block));
                }
                let text = clean_text(&text, Item::text_limit(&kind));
                if let Some(growing) = &mut self.growing
                    && growing.message_id.as_deref() == Some(&id)
                {
                    if growing.text != text {
                        growing.text = text;
                        growing.dirty = true;
                    }
                    return;
                }
                self.flush(world, pane, now);
                let item_id = match self.messages.get(&id) {
                    Some(item_id) => {
                        world.grow_item(pane, item_id, &text, now);
                        Some(item_id.clone())
                    }
                    None if text.is_empty() => None,
                    None => world.push_item(pane, kind.clone(), &text, now),
                };
                self.growing = item_id.map(|item_id| {
                    self.messages.insert(id.clone(), item_id.clone());
                    Growing {
                        kind,
                        item_id,
                        message_id: Some(id),
                        text,
                        dirty: false,
                    }
                });
            }
            Upsert::Plan { id, plan } => {
                self.flush(world, pane, now);
                self.growing = None;
                let text = plan_text(&plan);
                let grown = self
                    .plans
                    .get(&id)
                    .is_some_and(|item| world.grow_item(pane, item, &text, now));
                if !grown && let Some(item) = world.push_item(pane, ItemKind::Markdown, &text, now)
                {
                    self.plans.insert(id, item);
                }
            }
            Upsert::Diff { call, text } => {
                self.flush(world, pane, now);
                self.growing = None;
                let text = clean_text(&text, limits::MAX_DOC_TEXT);
                let tool = self.tools.entry(call).or_default();
                if text.is_empty() || tool.diffs.iter().any(|(_, t)| t == &text) {
                    return;
                }
                let mut item = Item::text("", ItemKind::Code, &text);
                item.language = Some("diff".into());
                if world.push_built_item(pane, &mut item, now).is_some() {
                    tool.diffs.push((String::new(), text));
                }
            }
            Upsert::Terminal { id, text, replace } => {
                self.flush(world, pane, now);
                self.growing = None;
                let limit = limits::MAX_DOC_TEXT;
                let text = terminal_text(&text, limit);
                match self.terminals.get_mut(&id) {
                    Some((item, shown)) => {
                        let was = shown.clone();
                        if replace {
                            *shown = text;
                        } else if shown.len() < limit {
                            shown.push_str(&text);
                        }
                        if shown.len() > limit {
                            let cut = crate::wire::sanitize::truncate_to(shown, limit).to_string();
                            *shown = cut;
                        }
                        if *shown != was {
                            world.grow_item(pane, item, shown, now);
                        }
                    }
                    None if text.is_empty() => {}
                    None => {
                        let mut item = Item::text("", ItemKind::Code, &text);
                        if let Some(item_id) = world.push_built_item(pane, &mut item, now) {
                            self.terminals.insert(id, (item_id, text));
                        }
                    }
                }
            }
        }
    }

    /// Applies one update to the pane's items.
    pub(crate) fn apply(
        &mut self,
        world: &mut World,
        pane: &str,
        update: SessionUpdate,
        now: OffsetDateTime,
    ) {
        match update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                let id = chunk.message_id.map(|m| m.0.to_string());
                self.chunk(world, pane, ItemKind::Reply, id, chunk.content, now);
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                let id = chunk.message_id.map(|m| m.0.to_string());
                self.chunk(world, pane, ItemKind::Thinking, id, chunk.content, now);
            }
            SessionUpdate::UserMessageChunk(chunk) => {
                let id = chunk.message_id.map(|m| m.0.to_string());
                self.chunk(world, pane, ItemKind::User, id, chunk.content, now);
            }
            SessionUpdate::ToolCall(call) => {
                self.flush(world, pane, now);
                self.tool_call(world, pane, call, now);
            }
            SessionUpdate::ToolCallUpdate(update) => {
                self.flush(world, pane, now);
                self.tool_update(world, pane, update, now);
            }
            SessionUpdate::Plan(plan) => {
                self.flush(world, pane, now);
                self.plan(world, pane, &plan, now);
            }
            SessionUpdate::AvailableCommandsUpdate(update) => {
                self.belt(world, pane, &update.available_commands, now);
            }
            SessionUpdate::CurrentModeUpdate(update) => {
                self.settings.set_mode(&update.current_mode_id.0);
                world.set_settings(pane, self.settings.wire());
            }
            SessionUpdate::ConfigOptionUpdate(update) => {
                self.settings.set_options(update.config_options);
                world.set_settings(pane, self.settings.wire());
            }
            SessionUpdate::UsageUpdate(update) => {
                world.set_usage(pane, super::usage::usage(&update));
            }
            SessionUpdate::SessionInfoUpdate(update) => {
                if let Some(title) = super::usage::title(&update) {
                    world.retitle(pane, &title);
                }
            }
            other => {
                tracing::debug!(pane, update = ?std::mem::discriminant(&other), "an ACP update the phone does not show");
            }
        }
    }

    /// Writes the text that grew since the last flush.
    pub(crate) fn flush(&mut self, world: &mut World, pane: &str, now: OffsetDateTime) {
        if let Some(growing) = &mut self.growing
            && growing.dirty
        {
            growing.dirty = false;
            world.grow_item(pane, &growing.item_id, &growing.text, now);
        }
    }

    /// A turn ended: what grew is written, and the next chunk starts a new item. Every call
    /// it left waiting or running is settled: its notice says it did not finish and `why`
    /// (docs/ACP.md, "Tool calls and their notices"), since no update will come for it.
    pub(crate) fn end_turn(
        &mut self,
        world: &mut World,
        pane: &str,
        why: &str,
        now: OffsetDateTime,
    ) {
        self.flush(world, pane, now);
        self.growing = None;
        self.plan = None;
        let mut open: Vec<&mut Tool> = self.tools.values_mut().filter(|t| t.open()).collect();
        // In the order they were shown, so the events read as the chat does.
        open.sort_by_key(|t| t.shown);
        for tool in open {
            tool.status = Status::Unfinished(clean_line(why));
            world.grow_item(pane, &tool.notice, &tool.line(), now);
        }
        let ended = self.turns;
        self.tools.retain(|_, t| t.turn >= ended);
        self.turns += 1;
        self.keep_open(world, pane);
    }

    /// Tells the pane's record which notices are still open, so a host that comes back from a
    /// kill can settle them ([`settle_after_restart`]).
    fn keep_open(&self, world: &mut World, pane: &str) {
        let mut open: Vec<&Tool> = self.tools.values().filter(|t| t.open()).collect();
        open.sort_by_key(|t| t.shown);
        let open: Vec<(String, String)> = open
            .into_iter()
            .map(|t| (t.notice.clone(), t.stem()))
            .collect();
        if let Some(record) = world.layout.panes.get_mut(pane)
            && record.open_tools != open
        {
            record.open_tools = open;
        }
    }

    fn chunk(
        &mut self,
        world: &mut World,
        pane: &str,
        kind: ItemKind,
        message_id: Option<String>,
        content: ContentBlock,
        now: OffsetDateTime,
    ) {
        let text = match content {
            ContentBlock::Text(text) => clean_text(&text.text, limits::MAX_CHAT_TEXT),
            ContentBlock::ResourceLink(link) => {
                self.flush(world, pane, now);
                self.growing = None;
                push_link(world, pane, &link.uri, &link.name, now);
                return;
            }
            ContentBlock::Image(_) => "[an image, not shown here]".to_string(),
            ContentBlock::Audio(_) => "[a sound clip, not played here]".to_string(),
            _ => "[a file the agent attached, not shown here]".to_string(),
        };
        if text.is_empty() {
            return;
        }
        let limit = Item::text_limit(&kind);
        if let Some(growing) = &mut self.growing
            && growing.kind == kind
            && growing.message_id == message_id
            && growing.text.len() + text.len() <= limit
        {
            growing.text.push_str(&text);
            growing.dirty = true;
            return;
        }
        self.flush(world, pane, now);
        self.growing = world
            .push_item(pane, kind.clone(), &text, now)
            .map(|item_id| Growing {
                kind,
                item_id,
                message_id,
                text,
                dirty: false,
            });
    }

    /// A `tool_call`. Claude Code sends one twice under the same id (first with little,
    /// then with its title and input): a call already shown is merged into its notice,
    /// never shown again.
    fn tool_call(&mut self, world: &mut World, pane: &str, call: ToolCall, now: OffsetDateTime) {
        // A call reads as kind `other` and status `pending` when it names none: those are
        // what it lacks, and keep what the notice says (a repeat never takes a running call
        // back to waiting).
        let fields = ToolCallUpdateFields::new()
            .title(Some(call.title).filter(|t| !t.is_empty()))
            .name(call.name)
            .kind(Some(call.kind).filter(|k| *k != ToolKind::default()))
            .status(Some(call.status).filter(|s| *s != ToolCallStatus::Pending))
            .content(Some(call.content).filter(|c| !c.is_empty()))
            .raw_input(call.raw_input);
        let claude_tool = claude_tool_name(call.meta.as_ref());
        let fields = match fields.name {
            Some(_) => fields,
            None => fields.name(
                claude_tool
                    .clone()
                    .filter(|n| tool_input::mcp_tool(n).is_some()),
            ),
        };
        let id = call.tool_call_id.0.to_string();
        self.tool_fields(world, pane, id.clone(), fields, now);
        if let Some(tool) = self.tools.get_mut(&id)
            && claude_tool.is_some()
        {
            tool.said.claude_tool = claude_tool;
        }
    }

    fn tool_update(
        &mut self,
        world: &mut World,
        pane: &str,
        update: ToolCallUpdate,
        now: OffsetDateTime,
    ) {
        let id = update.tool_call_id.0.to_string();
        self.tool_fields(world, pane, id, update.fields, now);
    }

    /// What a `tool_call` or `tool_call_update` says of a call: the fields it has win, the
    /// ones it lacks keep what the notice said; the notice is rewritten in place under its id
    /// (docs/WIRE.md § 5.8: an `item` event under an id already sent replaces it).
    fn tool_fields(
        &mut self,
        world: &mut World,
        pane: &str,
        id: String,
        fields: ToolCallUpdateFields,
        now: OffsetDateTime,
    ) {
        self.growing = None;
        let turn = self.turns;
        let Some(tool) = self.tools.get_mut(&id) else {
            // A call not seen yet (or one from before a load): a notice of its own.
            let mut tool = Tool {
                tool: tool_name(fields.name.as_deref(), fields.kind.as_ref()),
                title: fields.title.as_deref().map(clean_line).unwrap_or_default(),
                status: fields.status.as_ref().map_or(Status::Waiting, Status::from),
                turn,
                shown: self.shown,
                ..Tool::default()
            };
            tool.said.remember(&fields);
            self.shown += 1;
            let Some(notice) = world.push_item(pane, ItemKind::Notice, &tool.line(), now) else {
                return;
            };
            tool.notice = notice;
            tool.content(world, pane, fields.content.unwrap_or_default(), now);
            self.tools.insert(id, tool);
            self.keep_open(world, pane);
            return;
        };
        tool.turn = turn;
        tool.said.remember(&fields);
        let before = tool.line();
        if let Some(title) = fields.title.filter(|t| !t.is_empty()) {
            tool.title = clean_line(&title);
        }
        if fields.name.is_some() || fields.kind.is_some() {
            tool.tool = tool_name(fields.name.as_deref(), fields.kind.as_ref());
        }
        if let Some(status) = fields.status {
            tool.status = Status::from(&status);
        }
        if tool.line() != before {
            world.grow_item(pane, &tool.notice, &tool.line(), now);
        }
        if let Some(content) = fields.content {
            tool.content(world, pane, content, now);
        }
        self.keep_open(world, pane);
    }

    fn plan(&mut self, world: &mut World, pane: &str, plan: &Plan, now: OffsetDateTime) {
        self.growing = None;
        let text = plan_text(plan);
        let grown = self
            .plan
            .as_ref()
            .is_some_and(|id| world.grow_item(pane, id, &text, now));
        if !grown {
            self.plan = world.push_item(pane, ItemKind::Markdown, &text, now);
        }
    }

    fn belt(
        &mut self,
        world: &mut World,
        pane: &str,
        commands: &[AvailableCommand],
        now: OffsetDateTime,
    ) {
        self.commands.clear();
        let mut belt = Vec::new();
        let mut every = Vec::new();
        for command in commands {
            // Words kept apart: Gemini CLI's subcommands are `memory show`, sent as
            // `/memory show`; joined they would name no command at all.
            let mut name = String::new();
            for word in clean_line(&command.name).split_whitespace() {
                let word: String = word
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
                    .collect();
                if word.is_empty() {
                    continue;
                }
                if name.len() + word.len() + 1 > crate::wire::settings::MAX_COMMAND_NAME {
                    break;
                }
                if !name.is_empty() {
                    name.push(' ');
                }
                name.push_str(&word);
            }
            if name.is_empty() || every.len() >= limits::MAX_COMMANDS {
                continue;
            }
            let hint = match &command.input {
                Some(AvailableCommandInput::Unstructured(input)) => Some(clean_line(&input.hint)),
                _ => None,
            };
            every.push(AgentCommand {
                name: name.clone(),
                description: Some(clean_line(&command.description)).filter(|d| !d.is_empty()),
                hint: hint.filter(|h| !h.is_empty()),
            });
            if belt.len() >= limits::MAX_BELT_BUTTONS {
                continue;
            }
            let id = format!("cmd-{}", name.replace(' ', "-"));
            let label: String = format!("/{name}")
                .chars()
                .take(limits::MAX_BELT_LABEL_CHARS)
                .collect();
            self.commands.push((id.clone(), name));
            belt.push(BeltButton { id, label });
        }
        world.set_belt(pane, belt, now);
        world.set_commands(pane, every);
    }

    /// Fills what a permission request leaves out of its tool call from the call this stream
    /// holds under the same id: claude-code-acp asks with only the id, the input and a title,
    /// the kind (and the input, when the ask has none) came in the `tool_call` before it
    /// (docs/ACP.md, "Permission requests"). What the request says itself wins.
    pub(crate) fn fill_permission(&self, call: &mut ToolCallUpdate) {
        let Some(tool) = self.tools.get(&call.tool_call_id.0.to_string()) else {
            return;
        };
        let fields = &mut call.fields;
        if fields.kind.is_none() || fields.kind == Some(ToolKind::Other) {
            fields.kind = tool.said.kind.or(fields.kind.take());
        }
        if fields.name.is_none() {
            fields.name.clone_from(&tool.said.name);
        }
        if fields.name.is_none() && fields.kind.as_ref().is_none_or(|k| *k == ToolKind::Other) {
            fields.name.clone_from(&tool.said.claude_tool);
        }
        if fields.raw_input.as_ref().is_none_or(is_empty_input) && tool.said.raw_input.is_some() {
            fields.raw_input.clone_from(&tool.said.raw_input);
        }
        if fields.title.as_ref().is_none_or(String::is_empty) && !tool.title.is_empty() {
            fields.title = Some(tool.title.clone());
        }
    }

    /// The tool a question is tied to, by its call id: the name the call gave (or its kind), as
    /// a permission card names it; "a tool call" for a call the stream never saw.
    pub(crate) fn tool_of(&self, call: &str) -> String {
        match self.tools.get(call) {
            Some(tool) => {
                let name = tool
                    .said
                    .name
                    .as_deref()
                    .or(tool.said.claude_tool.as_deref());
                super::permission::tool_name(name, tool.said.kind.as_ref())
            }
            None => "a tool call".to_string(),
        }
    }

    /// The command a belt button runs, by its id.
    pub(crate) fn command(&self, button: &str) -> Option<&str> {
        self.commands
            .iter()
            .find(|(id, _)| id == button)
            .map(|(_, name)| name.as_str())
    }
}

/// A plan as its item's markdown: ✓ done, ▸ now, ○ to do.
fn plan_text(plan: &Plan) -> String {
    let mut text = String::from("**Plan**\n\n");
    for entry in &plan.entries {
        let mark = match entry.status {
            PlanEntryStatus::Completed => "✓",
            PlanEntryStatus::InProgress => "▸",
            _ => "○",
        };
        text.push_str(&format!("- {mark} {}\n", clean_line(&entry.content)));
    }
    text
}

/// A content block of a whole message as its text: text as said, anything else as words
/// saying what it was (as a chunk's, [`Stream::chunk`]).
fn block_text(block: ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text,
        ContentBlock::ResourceLink(link) => format!("[{}]({})", link.name, link.uri),
        ContentBlock::Image(_) => "[an image, not shown here]".to_string(),
        ContentBlock::Audio(_) => "[a sound clip, not played here]".to_string(),
        _ => "[a file the agent attached, not shown here]".to_string(),
    }
}

/// The text of one of the pane's items, as the world holds it.
fn item_text(world: &World, pane: &str, item_id: &str) -> Option<String> {
    let conversation = &world.layout.panes.get(pane)?.conversation_id;
    world
        .layout
        .conversations
        .get(conversation)?
        .items
        .iter()
        .rev()
        .find(|i| i.id == item_id)
        .map(|i| i.text.clone())
}

/// Where a call stands, as its notice says it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
enum Status {
    #[default]
    Waiting,
    Running,
    Done,
    Failed,
    /// Still open when its turn ended: why it will not finish.
    Unfinished(String),
}

impl From<&ToolCallStatus> for Status {
    fn from(status: &ToolCallStatus) -> Self {
        match status {
            ToolCallStatus::InProgress => Status::Running,
            ToolCallStatus::Completed => Status::Done,
            ToolCallStatus::Failed => Status::Failed,
            _ => Status::Waiting,
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Waiting => f.write_str("waiting"),
            Status::Running => f.write_str("running"),
            Status::Done => f.write_str("done"),
            Status::Failed => f.write_str("failed"),
            Status::Unfinished(why) => write!(f, "not finished: {why}"),
        }
    }
}

impl Said {
    /// What an update says wins; what it lacks (or an empty input: Claude's first `tool_call`
    /// of a use has `{}`) keeps what was said before.
    fn remember(&mut self, fields: &ToolCallUpdateFields) {
        if let Some(kind) = fields.kind.filter(|k| *k != ToolKind::Other) {
            self.kind = Some(kind);
        }
        if let Some(name) = &fields.name {
            self.name = Some(name.clone());
        }
        if let Some(input) = fields.raw_input.as_ref().filter(|i| !is_empty_input(i)) {
            self.raw_input = Some(input.clone());
        }
    }
}

fn is_empty_input(input: &serde_json::Value) -> bool {
    input.is_null() || input.as_object().is_some_and(serde_json::Map::is_empty)
}

/// The tool claude-code-acp names in a `tool_call`'s `_meta.claudeCode.toolName`: its calls
/// carry no name of their own. It is read as a name to show and nothing more: an MCP tool's
/// (`mcp__SERVER__TOOL`) names the call, so a card says which server's tool it runs; Claude's
/// own tools are known by their kind, and by this name only when the kind says nothing
/// (docs/ACP.md, "Permission requests").
fn claude_tool_name(meta: Option<&serde_json::Map<String, serde_json::Value>>) -> Option<String> {
    let name = meta?.get("claudeCode")?.get("toolName")?.as_str()?;
    Some(name.to_string()).filter(|n| !n.is_empty())
}

impl Tool {
    fn open(&self) -> bool {
        matches!(self.status, Status::Waiting | Status::Running)
    }

    fn line(&self) -> String {
        format!("{} ({})", self.stem(), self.status)
    }

    /// The notice's words before its status.
    fn stem(&self) -> String {
        if self.title.is_empty() || self.title == self.tool {
            format!("Tool {}", self.tool)
        } else {
            format!("Tool {}: {}", self.tool, self.title)
        }
    }

    /// A call's content, which each update sends whole: its text output as one code item,
    /// rewritten as it changes, and each diff as a code item of its own.
    fn content(
        &mut self,
        world: &mut World,
        pane: &str,
        content: Vec<ToolCallContent>,
        now: OffsetDateTime,
    ) {
        let mut output = String::new();
        for piece in content {
            match piece {
                ToolCallContent::Content(block) => {
                    if let ContentBlock::Text(text) = block.content {
                        if !output.is_empty() {
                            output.push('\n');
                        }
                        output.push_str(&clean_text(&text.text, limits::MAX_DOC_TEXT));
                    }
                }
                ToolCallContent::Diff(diff) => {
                    let path = clean_line(&diff.path.to_string_lossy());
                    let old = diff.old_text.as_deref().map(|t| clean_text(t, usize::MAX));
                    let new = clean_text(&diff.new_text, usize::MAX);
                    let text =
                        tool_input::unified_diff(&path, old.as_deref().unwrap_or_default(), &new);
                    if self.diffs.iter().any(|(p, t)| p == &path && t == &text) {
                        continue;
                    }
                    let mut item = Item::text(
                        "",
                        ItemKind::Code,
                        crate::wire::sanitize::truncate_to(&text, limits::MAX_DOC_TEXT),
                    );
                    item.language = Some("diff".into());
                    if world.push_built_item(pane, &mut item, now).is_some() {
                        self.diffs.push((path, text));
                    }
                }
                _ => {}
            }
        }
        if output.is_empty() {
            return;
        }
        match &mut self.output {
            Some((id, shown)) if *shown != output => {
                world.grow_item(pane, id, &output, now);
                *shown = output;
            }
            Some(_) => {}
            None => {
                let mut item = Item::text(
                    "",
                    ItemKind::Code,
                    crate::wire::sanitize::truncate_to(&output, limits::MAX_DOC_TEXT),
                );
                if let Some(id) = world.push_built_item(pane, &mut item, now) {
                    self.output = Some((id, output));
                }
            }
        }
    }
}

/// A link the agent sent: an `https://` address becomes a link item, anything else a line
/// of text naming it (SPEC L: a link is `https://` only).
/// A host that comes back from a kill settles the calls its pane's record still holds open:
/// the old host's turn is over and no update will come for them, so each notice says it did
/// not finish and `why`, in the order shown (docs/ACP.md, "Tool calls and their notices").
pub(crate) fn settle_after_restart(world: &mut World, pane: &str, why: &str, now: OffsetDateTime) {
    let open = world
        .layout
        .panes
        .get_mut(pane)
        .map(|record| std::mem::take(&mut record.open_tools))
        .unwrap_or_default();
    for (notice, stem) in open {
        let status = Status::Unfinished(clean_line(why));
        world.grow_item(pane, &notice, &format!("{stem} ({status})"), now);
    }
}

fn push_link(world: &mut World, pane: &str, uri: &str, name: &str, now: OffsetDateTime) {
    let uri = clean_line(uri);
    let name = clean_line(name);
    if uri.starts_with("https://") && uri.chars().count() <= limits::MAX_LINK_CHARS {
        let mut item = Item::text("", ItemKind::Link, "");
        item.url = Some(uri);
        item.title = Some(name);
        world.push_built_item(pane, &mut item, now);
    } else {
        world.push_item(
            pane,
            ItemKind::Notice,
            &format!("The agent pointed at {name} ({uri})."),
            now,
        );
    }
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{ContentBlock, ContentChunk, MessageId, SessionUpdate};
    use time::OffsetDateTime;

    use super::Stream;
    use crate::durable::world::World;
    use crate::wire::ItemKind;

    fn t0() -> OffsetDateTime {
        time::macros::datetime!(2026-01-02 03:04:05 UTC)
    }

    fn chunk(text: &str, message: Option<&str>) -> SessionUpdate {
        let mut chunk = ContentChunk::new(ContentBlock::from(text.to_string()));
        if let Some(id) = message {
            chunk = chunk.message_id(MessageId::new(id.to_string()));
        }
        SessionUpdate::AgentMessageChunk(chunk)
    }

    fn replies(world: &World, pane: &str) -> Vec<String> {
        let conversation = &world.layout.panes[pane].conversation_id;
        world.layout.conversations[conversation]
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Reply)
            .map(|i| i.text.clone())
            .collect()
    }

    /// ACP v2's upserts: a message id is one item, rewritten in place when a whole message
    /// comes again, even after another item; a terminal's output grows its own item, capped
    /// as any item is (SPEC L1).
    #[test]
    fn an_upsert_rewrites_its_item_in_place_and_a_terminal_is_capped() {
        use super::Upsert;
        let mut world =
            crate::rigs::worlds::build(crate::rigs::WorldKind::Demo, 1, true, "h", t0());
        let pane = world.layout.panes.keys().next().expect("a pane").clone();
        let before = replies(&world, &pane).len();
        let mut stream = Stream::default();
        let message = |id: &str, text: &str| Upsert::Message {
            kind: ItemKind::Reply,
            id: id.into(),
            content: vec![ContentBlock::from(text.to_string())],
        };
        stream.upsert(&mut world, &pane, message("m1", "Draft"), t0());
        stream.upsert(
            &mut world,
            &pane,
            Upsert::Chunk {
                kind: ItemKind::Reply,
                id: "m2".into(),
                content: Box::new(ContentBlock::from("Other".to_string())),
            },
            t0(),
        );
        stream.upsert(&mut world, &pane, message("m1", "Final words"), t0());
        stream.flush(&mut world, &pane, t0());
        assert_eq!(replies(&world, &pane)[before..], ["Final words", "Other"]);

        let limit = crate::wire::limits::MAX_DOC_TEXT;
        let code_items = |world: &World| -> Vec<usize> {
            let conversation = &world.layout.panes[&pane].conversation_id;
            world.layout.conversations[conversation]
                .items
                .iter()
                .filter(|i| i.kind == ItemKind::Code)
                .map(|i| i.text.len())
                .collect()
        };
        let code_before = code_items(&world).len();
        for _ in 0..3 {
            let text = "x".repeat(limit / 2 + 1);
            let chunk = Upsert::Terminal {
                id: "t1".into(),
                text,
                replace: false,
            };
            stream.upsert(&mut world, &pane, chunk, t0());
        }
        let code = code_items(&world);
        assert_eq!(code.len(), code_before + 1, "one item per terminal");
        assert!(
            code[code_before] <= limit,
            "{} > {limit}",
            code[code_before]
        );
    }

    /// An agent's `messageId` keeps one item per message (docs/ACP.md, "Session updates"):
    /// the chunks of one message are one reply, two messages are two, even back to back.
    #[test]
    fn chunks_of_one_message_are_one_item_and_two_messages_are_two() {
        let mut world =
            crate::rigs::worlds::build(crate::rigs::WorldKind::Demo, 1, true, "h", t0());
        let pane = world.layout.panes.keys().next().expect("a pane").clone();
        let before = replies(&world, &pane).len();
        let mut stream = Stream::default();
        for update in [
            chunk("Hello ", Some("m1")),
            chunk("there.", Some("m1")),
            chunk("Second ", Some("m2")),
            chunk("message.", Some("m2")),
        ] {
            stream.apply(&mut world, &pane, update, t0());
        }
        stream.flush(&mut world, &pane, t0());
        let after = replies(&world, &pane);
        assert_eq!(after[before..], ["Hello there.", "Second message."]);
    }
}
