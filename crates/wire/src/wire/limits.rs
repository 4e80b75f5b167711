//! The numbers of SPEC L, W4, W5 and S1/T1/T2 in one place, so agent and Collie cut at the same marks.

/// Workspaces a snapshot may carry (SPEC L).
pub const MAX_WORKSPACES: usize = 64;
/// Tabs a snapshot may carry, over all workspaces (SPEC L).
pub const MAX_TABS: usize = 256;
/// Panes a snapshot may carry, over all tabs (SPEC L).
pub const MAX_PANES: usize = 256;
/// Open asks per pane, oldest first (SPEC L, A2).
pub const MAX_OPEN_ASKS_PER_PANE: usize = 50;
/// Options of a permission ask (SPEC L).
pub const MAX_PERMISSION_OPTIONS: usize = 6;
/// Options of a choice ask and of a form's choice field (SPEC L).
pub const MAX_CHOICE_OPTIONS: usize = 8;
/// Fields of a form ask (SPEC L).
pub const MAX_FORM_FIELDS: usize = 6;
/// Answers besides the filled-in form (a form's `options`, e.g. "Decline").
pub const MAX_FORM_OPTIONS: usize = 2;
/// Starters per snapshot (SPEC L, A17).
pub const MAX_STARTERS: usize = 50;
/// Belt buttons per pane (SPEC L).
pub const MAX_BELT_BUTTONS: usize = 4;
/// Characters of a belt button label (SPEC L).
pub const MAX_BELT_LABEL_CHARS: usize = 16;
/// Settings per pane: its mode and its options (SPEC L; docs/WIRE.md § 5.13).
pub const MAX_SETTINGS: usize = 8;
/// Choices of one setting (SPEC L; docs/WIRE.md § 5.13).
pub const MAX_SETTING_CHOICES: usize = 32;
/// Commands per pane, every one the agent offers (SPEC L; docs/WIRE.md § 5.14).
pub const MAX_COMMANDS: usize = 64;
/// Bytes of an id (SPEC L).
pub const MAX_ID_BYTES: usize = 128;
/// Bytes of a request body (SPEC W4, L).
pub const MAX_REQUEST_BODY: usize = 64 * 1024;
/// Reply caps per route (SPEC W5, L).
pub const MAX_HELLO_REPLY: usize = 16 * 1024;
pub const MAX_SNAPSHOT_REPLY: usize = 4 * 1024 * 1024;
pub const MAX_EVENTS_REPLY: usize = 8 * 1024 * 1024;
pub const MAX_CONVERSATIONS_REPLY: usize = 1024 * 1024;
pub const MAX_ITEMS_REPLY: usize = 8 * 1024 * 1024;
pub const MAX_POST_REPLY: usize = 16 * 1024;
/// Events in one events reply (SPEC L).
pub const MAX_EVENTS_PER_REPLY: usize = 1000;
/// Items in a pane's current view, the newest kept (SPEC L, H5).
pub const MAX_VIEW_ITEMS: usize = 2000;
/// Bytes the phone keeps of the chats of one agent, over all its panes (SPEC L2): the words of
/// the items (and closed asks) it holds. The limits above alone let one agent fill 256 panes of
/// 2000 items of 64 KiB, some 32 GiB read in the background; 64 MiB holds hundreds of thousands
/// of ordinary items, or a thousand of the largest, and keeps a phone on a handful of agents
/// within a few hundred MiB. Past it the oldest items of panes off screen go first; the agent
/// still has them (History).
pub const MAX_AGENT_CHAT_BYTES: usize = 64 * 1024 * 1024;
/// Bytes of the text of a user, reply, thinking or notice item (SPEC L).
pub const MAX_CHAT_TEXT: usize = 64 * 1024;
/// Bytes of the text of a markdown or code item (SPEC L).
pub const MAX_DOC_TEXT: usize = 32 * 1024;
/// Bytes of text the phone sends (SPEC L).
pub const MAX_SEND_TEXT: usize = 32 * 1024;
/// Characters of a link item's URL (SPEC L).
pub const MAX_LINK_CHARS: usize = 2048;
/// Conversations in one history page (SPEC L).
pub const MAX_CONVERSATIONS_PAGE: usize = 100;
/// Items in one history page (SPEC L).
pub const MAX_ITEMS_PAGE: usize = 1000;
/// Bytes of a history cursor (SPEC L).
pub(crate) const MAX_CURSOR_BYTES: usize = 512;
/// Bytes of `host.name` (SPEC H1).
pub const MAX_HOST_NAME: usize = 64;
/// Bytes of a socket path (SPEC S1).
pub const MAX_SOCKET_PATH: usize = 103;
/// Bytes of an agent URL (SPEC T1).
pub const MAX_URL_BYTES: usize = 2048;
/// Least bytes of a token (SPEC T2).
pub const MIN_TOKEN_BYTES: usize = 32;

// The seeds set no limit on the following; these are ours, generous enough that no
// sane agent meets them, and documented in docs/WIRE.md ("Our own limits").
/// Bytes of a title (workspace, tab, pane, ask, starter, conversation).
pub const MAX_TITLE: usize = 256;
/// Bytes of a short label (an option label, a field label, a tool name).
pub const MAX_LABEL: usize = 256;
/// Bytes of an ask's prompt or a starter's description.
pub const MAX_PROMPT: usize = 4 * 1024;
/// Bytes of a permission ask's arguments, as compact JSON.
pub const MAX_ARGUMENTS: usize = 16 * 1024;
/// Bytes of an epoch, wherever it appears (hello, snapshot, events). SPEC H1 asks for at least
/// 128 bits; one limit everywhere, so a long epoch never looks like a restart.
pub(crate) const MAX_EPOCH: usize = 256;
/// Bytes of any other string value (a timestamp, a language name, an error message).
pub const MAX_SHORT: usize = 1024;
/// Bytes of a text answer and of each form value the phone sends.
pub const MAX_ANSWER_TEXT: usize = 32 * 1024;
