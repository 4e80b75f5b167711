//! A pane: its chat (scrolled by lines, following the newest by default), its belt, and the
//! input box whose words stay as a draft until the agent took them (SPEC A16, L).

pub(crate) mod commands;
pub(crate) mod draw;
pub(crate) mod draw_chat;
pub(crate) mod draw_commands;
pub(crate) mod draw_dsh;
pub(crate) mod draw_kind;
pub(crate) mod draw_setting;
pub(crate) mod dsh;
pub(crate) mod keys;
pub(crate) mod select;

use crossterm::event::KeyEvent;

use crate::app::keymap::{Action, Context};
use crate::app::outside_editor::{self, EditTarget};
use crate::app::overlay::{About, Deferred, Overlay};
use crate::app::phone::Goto;
use crate::app::phone::Phone;
use crate::app::{Command, geometry, typing};
use crate::chat::pane_log::ChatEntry;
use crate::engine::IntentKind;
use crate::look::chat::ChatStyle;
use crate::look::chat_scroll::ChatScroll;
use crate::look::chat_view::ChatLayout;
use crate::look::theme::Theme;
use crate::look::wrap;
use crate::model::editor::Editor;
use crate::model::inbox::AskKey;
use crate::model::news::Heard;
use crate::screens::room::{Heeded, Room};
use crate::wire::{BeltButton, TurnState, limits};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PaneFocus {
    Chat,
    Input,
}

#[derive(Debug, Clone)]
pub struct PaneScreen {
    pub agent: String,
    pub pane: String,
    pub(crate) focus: PaneFocus,
    pub scroll: ChatScroll,
    pub(crate) thinking_expanded: bool,
    /// The chat item `y`, `Y` and `o` act on, by its key; `[` and `]` move it.
    pub(crate) selected: Option<String>,
    pub(crate) search: crate::screens::search::Search,
    /// The links the last frame showed, for the runner's OSC 8 (a memo the drawing fills).
    pub(crate) drawn_links: std::cell::RefCell<Vec<select::DrawnLink>>,
    /// The list of the agent's commands over the box, after `/`.
    pub(crate) commands: commands::CommandList,
}

impl PaneScreen {
    pub(crate) fn new(agent: &str, pane: &str) -> Self {
        Self {
            agent: agent.to_string(),
            pane: pane.to_string(),
            focus: PaneFocus::Chat,
            scroll: ChatScroll::default(),
            thinking_expanded: false,
            selected: None,
            search: crate::screens::search::Search::default(),
            drawn_links: Default::default(),
            commands: commands::CommandList::default(),
        }
    }

    /// The parts of the pane screen for the pane shown now.
    pub(crate) fn parts(&self, phone: &Phone) -> geometry::Pane {
        let width = geometry::input_text_width(phone.size().0);
        let input_lines = phone
            .draft(&self.agent, &self.pane)
            .map_or(1, |d| d.rows(width).0.len());
        let shown = phone.agents().pane(&self.agent, &self.pane);
        let has_asks = shown.as_ref().is_some_and(|p| !p.asks().is_empty());
        // The line under the heading: the agent's settings, its usage, or both.
        let has_settings = shown
            .as_ref()
            .is_some_and(|p| !p.pane.settings.is_empty() || p.pane.usage.is_some());
        let outbox_lines = phone.outbox().len(&self.agent, &self.pane)
            + usize::from(phone.came_back(&self.agent, &self.pane).is_some());
        geometry::pane(
            phone.size().0,
            phone.size().1,
            input_lines,
            outbox_lines,
            has_asks,
            has_settings,
        )
    }

    /// The rows the chat takes: the pane's chat part, less the line under it when it shows.
    pub(crate) fn chat_area(&self, phone: &Phone) -> ratatui::layout::Rect {
        let mut chat = self.parts(phone).chat;
        if self.shows_chat_bar() && chat.height > 1 {
            chat.height -= 1;
        }
        // Scrolled up, the last row says that more lies below: it is the note's own row,
        // never drawn over a row of the chat.
        if !self.scroll.is_following() && chat.height > 1 {
            chat.height -= 1;
        }
        chat
    }

    /// True when the line under the chat shows: the search, or what the selection offers.
    pub(crate) fn shows_chat_bar(&self) -> bool {
        self.search.editing || self.search.lit || self.selected.is_some()
    }
}

/// A belt button as drawn: its words and where they sit on the belt line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BeltSlot {
    pub(crate) text: String,
    pub(crate) x: u16,
    pub(crate) width: u16,
}

/// The belt's buttons laid out from the left in `width` columns: `[F1 Run tests] [F2 Lint]`.
/// Where all do not fit whole, the longest labels are cut (with `…`) until they do, so every
/// button keeps its key on screen: a button the person cannot see is a key they cannot know.
pub(crate) fn belt_slots(belt: &[BeltButton], width: u16) -> Vec<BeltSlot> {
    let buttons: Vec<&BeltButton> = belt.iter().take(limits::MAX_BELT_BUTTONS).collect();
    let frame = |i: usize, label: &str| format!("[F{} {label}]", i + 1);
    let total = |cap: usize| -> usize {
        buttons
            .iter()
            .enumerate()
            .map(|(i, b)| wrap::width(&frame(i, &wrap::truncate(&b.label, cap))) + 1)
            .sum::<usize>()
            .saturating_sub(1)
    };
    let longest = buttons
        .iter()
        .map(|b| wrap::width(&b.label))
        .max()
        .unwrap_or(0);
    // The widest cap that fits; a label keeps at least two columns (one letter and `…`).
    let mut cap = longest;
    while cap > 2 && total(cap) > usize::from(width) {
        cap -= 1;
    }
    let mut x = 0u16;
    buttons
        .iter()
        .enumerate()
        .map(|(i, button)| {
            let text = frame(i, &wrap::truncate(&button.label, cap));
            let width = u16::try_from(wrap::width(&text)).unwrap_or(u16::MAX);
            let slot = BeltSlot { text, x, width };
            x = x.saturating_add(width + 1);
            slot
        })
        .collect()
}

/// "1.2 KiB / 32 KiB": the input's size against the limit of SPEC L.
pub(crate) fn byte_count(bytes: usize) -> String {
    size_against(bytes, limits::MAX_SEND_TEXT)
}

/// "1.2 KiB / 32 KiB": a size against a limit, as the counter and every refusal say it.
pub fn size_against(bytes: usize, limit: usize) -> String {
    format!("{} / {} KiB", size_words(bytes), limit / 1024)
}

/// "812 B", "38.4 KiB": one rounding for every place a size is shown, so the counter and the
/// refusal of the same message never disagree.
pub(crate) fn size_words(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

/// The cache scope of a pane's chat.
pub(crate) fn pane_scope(agent: &str, pane: &str) -> String {
    format!("pane/{agent}/{pane}")
}

/// The cache scope of a conversation read from history.
pub(crate) fn conversation_scope(agent: &str, conversation: &str) -> String {
    format!("history/{agent}/{conversation}")
}

/// A chat to scroll: its entries and how they are laid out.
pub(crate) struct ChatView<'a> {
    pub(crate) layout: &'a ChatLayout,
    pub(crate) scope: &'a str,
    pub(crate) entries: &'a VecDeque<ChatEntry>,
    pub(crate) style: ChatStyle,
    pub(crate) height: usize,
    pub(crate) theme: &'a Theme,
}

/// What the thinking key did when no thinking shows to fold or unfold: words that stay true
/// when the chat scrolls to some.
pub(crate) fn thinking_words(phone: &Phone, expanded: bool) -> String {
    let key = phone
        .keymap()
        .key_label(keys::CHAT, Action::ToggleThinking)
        .unwrap_or_else(|| "the thinking key".into());
    if expanded {
        format!("Thinking shows unfolded now; {key} folds it again.")
    } else {
        format!("Thinking shows folded now; {key} unfolds it.")
    }
}

/// Scrolls a chat by an action, measuring only the entries passed over.
pub(crate) fn scroll(scroll: &mut ChatScroll, action: Action, view: ChatView<'_>) {
    let ChatView {
        layout,
        scope,
        entries,
        style,
        height,
        theme,
    } = view;
    let mut measure = |entry: &ChatEntry| layout.height(scope, entry, &style, theme);
    let page = height.saturating_sub(1).max(1);
    match action {
        Action::Up => scroll.up(1, entries, height, &mut measure),
        Action::Down => scroll.down(1, entries, height, &mut measure),
        Action::PageUp => scroll.up(page, entries, height, &mut measure),
        Action::PageDown => scroll.down(page, entries, height, &mut measure),
        Action::Top => scroll.jump_to_top(entries),
        Action::Bottom => scroll.jump_to_bottom(),
        _ => {}
    }
}

/// Brings the words of the stopped send, and of those queued after it, back into the box,
/// before what is typed there; the receipt stays in the journal as it was.
fn take_back(phone: &mut Phone, agent: &str, pane_id: &str) -> Vec<Command> {
    let held: Vec<String> = phone
        .outbox()
        .lines(agent, pane_id)
        .filter_map(|o| o.request_id())
        .filter(|id| phone.send_is_held(id))
        .map(str::to_string)
        .collect();
    let Some(taken) = phone
        .model
        .outbox_mut()
        .take_back(agent, pane_id, |id| held.iter().any(|h| h == id))
    else {
        phone.show_toast(
            "No message of this pane is held: nothing to take back.",
            false,
        );
        return Vec::new();
    };
    let unknown = held
        .first()
        .and_then(|id| phone.intents().get(id))
        .is_some_and(|r| {
            matches!(
                r.state,
                crate::engine::IntentState::Unknown { .. }
                    | crate::engine::IntentState::MaybeApplied
            )
        });
    phone.back_into_box(agent, pane_id, &taken);
    if unknown {
        phone.show_toast(
            "Back in the box. The first try may have arrived: check the chat before sending.",
            true,
        );
    } else {
        phone.show_toast("The words are back in the box.", false);
    }
    Vec::new()
}

/// Asks first, naming the turn that will stop (SPEC A16).
fn ask_abort(phone: &mut Phone, agent: &str, pane_id: &str) -> Vec<Command> {
    let running = phone
        .agents()
        .pane(agent, pane_id)
        .and_then(|p| p.turn())
        .filter(|t| t.state == TurnState::Running)
        .map(|t| t.id.clone());
    let Some(turn_id) = running else {
        // True until a turn starts here (a message sent starts one).
        let about = phone.pane_turn_subject(agent, pane_id);
        phone.show_toast_about("No turn is running in this pane.", false, about);
        return Vec::new();
    };
    // The question stands alone: an older message would speak of another moment.
    phone.footer.clear();
    // Words the agent holds behind this turn are dropped by the stop: the question says
    // so, and they come back to the box once the stop is taken.
    let waiting = phone.outbox().waiting_behind(agent, pane_id, &turn_id);
    let short = |words: &str| {
        let first = words.lines().next().unwrap_or_default();
        crate::look::wrap::truncate(first, 40)
    };
    let turn = crate::app::names::turn_name(&turn_id);
    let question = match waiting.as_slice() {
        [] => format!("Stop {turn}?"),
        [one] => format!(
            "Stop {turn}? 1 queued message comes back to your box: “{}”",
            short(&one[..])
        ),
        many => format!(
            "Stop {turn}? {} queued messages come back to your box: “{}”, …",
            many.len(),
            short(many[0])
        ),
    };
    phone.overlay = Some(Overlay::confirm_about(
        question,
        Deferred::Submit {
            agent: agent.to_string(),
            kind: IntentKind::Abort {
                pane: pane_id.to_string(),
                turn_id: turn_id.clone(),
            },
        },
        About::Turn {
            agent: agent.to_string(),
            pane: pane_id.to_string(),
            turn_id,
        },
    ));
    Vec::new()
}

fn press_belt(phone: &mut Phone, agent: &str, pane_id: &str, n: usize) -> Vec<Command> {
    let button = phone
        .agents()
        .pane(agent, pane_id)
        .and_then(|p| p.pane.belt.get(n.wrapping_sub(1)).map(|b| b.id.clone()));
    match button {
        Some(button_id) => phone.submit(
            agent,
            IntentKind::Action {
                pane: pane_id.to_string(),
                button_id,
            },
        ),
        None => {
            phone.show_toast(format!("This pane has no button {n}."), false);
            Vec::new()
        }
    }
}

impl PaneScreen {
    /// Sends the draft to the turn on screen (SPEC A16); the words stay until the agent took
    /// them, so a refusal or an unknown outcome never loses them.
    fn send(&mut self, phone: &mut Phone) -> Vec<Command> {
        let (agent, pane_id) = (self.agent.clone(), self.pane.clone());
        let (agent, pane_id) = (agent.as_str(), pane_id.as_str());
        let Some(draft) = phone.draft(agent, pane_id).filter(|d| !d.is_empty()) else {
            phone.show_toast("Type a message first.", false);
            return Vec::new();
        };
        let text = draft.text();
        if text.len() > limits::MAX_SEND_TEXT {
            phone.show_toast(
                format!(
                    "Not sent: the message is {} and the limit is {} KiB. Shorten it first.",
                    size_words(text.len()),
                    limits::MAX_SEND_TEXT / 1024
                ),
                true,
            );
            return Vec::new();
        }
        let Some(pane) = phone.agents().pane(agent, pane_id) else {
            phone.show_toast("This pane is gone; the words stay here.", true);
            return Vec::new();
        };
        let turn_id = pane.turn().map(|t| t.id.clone());
        self.dispatch_send(
            phone,
            IntentKind::Send {
                pane: pane_id.to_string(),
                turn_id,
                text,
            },
        )
    }

    /// Enter: the words leave the box into the pane's outbox at once, so what is typed next is
    /// a new message and never rides along; they leave for the agent when the sends before
    /// them were taken. The chat shows its newest item: what was just sent goes there.
    fn dispatch_send(&mut self, phone: &mut Phone, kind: IntentKind) -> Vec<Command> {
        // The words are the outbox's now (SPEC A16).
        phone.model.clear_draft(&self.agent, &self.pane);
        self.scroll.jump_to_bottom();
        match phone.model.outbox_mut().push(&self.agent, &self.pane, kind) {
            crate::model::outbox::Next::Submit { agent, kind } => phone.submit(&agent, kind),
            crate::model::outbox::Next::Wait => Vec::new(),
        }
    }

    /// Whether a thinking item shows in the chat as it is drawn now, so folding or unfolding
    /// it changes what the person sees.
    fn thinking_on_screen(&self, phone: &Phone) -> bool {
        let Some(log) = phone
            .agents()
            .pane(&self.agent, &self.pane)
            .and_then(|p| p.log)
        else {
            return false;
        };
        let chat = self.chat_area(phone);
        let style = ChatStyle {
            width: chat.width,
            thinking_expanded: self.thinking_expanded,
        };
        let scope = pane_scope(&self.agent, &self.pane);
        crate::look::chat_view::visible_rows(
            phone.view.chat_layout(),
            &scope,
            &log.entries,
            &self.scroll,
            &style,
            usize::from(chat.height),
            phone.theme(),
        )
        .iter()
        // Its first line, which says it is folded and how long it is, is what changes.
        .any(|row| {
            row.line == 0
                && matches!(&log.entries[row.entry], ChatEntry::Item(item) if item.kind == crate::wire::ItemKind::Thinking)
        })
    }

    fn set_focus(&mut self, focus: PaneFocus) {
        self.focus = focus;
        // The search line gives the keys back; its words and matches stay.
        self.search.editing = false;
    }

    /// A key's action on a pane: the chat's, the box's, or a DSH bridge task's.
    fn pane_action(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        let (agent, pane_id, focus) = (self.agent.clone(), self.pane.clone(), self.focus);
        let can = phone.can(&agent);
        if can.task_actions && action == Action::Send {
            return self.dsh_send(phone);
        }
        if can.task_actions
            && let Some(commands) = dsh::pane_action(phone, &agent, &pane_id, action)
        {
            return commands;
        }
        match action {
            Action::Back if focus == PaneFocus::Input => {
                self.set_focus(PaneFocus::Chat);
                Vec::new()
            }
            Action::Back if self.chat_escape() => Vec::new(),
            Action::Back => phone.back(),
            Action::SelectPrev | Action::SelectNext => self.select_item(phone, action),
            Action::Copy => self.copy_selected(phone, false),
            Action::CopyCode => self.copy_selected(phone, true),
            Action::OpenLink => self.open_selected_link(phone),
            Action::Search => self.open_search(phone),
            Action::NextMatch => self.next_match(phone, true),
            Action::PrevMatch => self.next_match(phone, false),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => self.scroll_chat(phone, action),
            Action::FocusInput => {
                self.set_focus(PaneFocus::Input);
                Vec::new()
            }
            Action::ToggleThinking => {
                self.thinking_expanded = !self.thinking_expanded;
                if !self.thinking_on_screen(phone) {
                    phone.show_toast(thinking_words(phone, self.thinking_expanded), false);
                }
                Vec::new()
            }
            Action::Newline => {
                phone.model.draft_mut(&agent, &pane_id).newline();
                Vec::new()
            }
            Action::EditOutside => {
                let text = phone
                    .draft(&agent, &pane_id)
                    .map(Editor::text)
                    .unwrap_or_default();
                let target = EditTarget::Draft {
                    agent,
                    pane: pane_id,
                };
                vec![outside_editor::open(target, text)]
            }
            Action::Send => self.send(phone),
            Action::Abort => ask_abort(phone, &agent, &pane_id),
            Action::TakeBack => take_back(phone, &agent, &pane_id),
            Action::NewPage => {
                phone.open(Goto::New);
                Vec::new()
            }
            Action::History => crate::screens::home::open_history(phone, &agent),
            Action::Retry => {
                // The held send first: it holds the ones typed after it.
                let held = phone
                    .outbox()
                    .held(&agent, &pane_id, |id| {
                        phone
                            .intents()
                            .get(id)
                            .is_some_and(crate::model::intents::is_retryable)
                    })
                    .map(str::to_string);
                let retry = held.or_else(|| {
                    phone
                        .intents()
                        .latest_for_pane(&agent, &pane_id)
                        .filter(|r| crate::model::intents::is_retryable(r))
                        .map(|r| r.request_id.clone())
                });
                match retry {
                    Some(request_id) => phone.retry(&request_id),
                    None => {
                        phone.show_toast("Nothing here needs a retry.", false);
                        Vec::new()
                    }
                }
            }
            Action::Belt(n) => press_belt(phone, &agent, &pane_id, usize::from(n)),
            Action::Settings => phone.open_settings(&agent, &pane_id),
            Action::MessageKind | Action::SendMode => {
                phone.show_toast(
                    "Message kinds and modes belong to DSH bridge tasks; this agent takes plain messages.",
                    false,
                );
                Vec::new()
            }
            Action::Close => {
                if !crate::screens::layout::agent_can(phone, &agent, crate::wire::caps::CLOSE) {
                    phone.show_toast(format!("{agent} does not close panes."), true);
                    return Vec::new();
                }
                let title = phone
                    .agents()
                    .pane(&agent, &pane_id)
                    .map_or_else(|| pane_id.clone(), |p| p.pane.title.clone());
                phone.overlay = Some(Overlay::confirm(
                    format!("Close the pane “{title}” and stop its agent?"),
                    Deferred::Submit {
                        agent,
                        kind: IntentKind::Close {
                            target: "pane".into(),
                            id: pane_id,
                        },
                    },
                ));
                Vec::new()
            }
            Action::OpenAsk => {
                let first = phone
                    .agents()
                    .pane(&agent, &pane_id)
                    .and_then(|p| p.asks().first().map(|a| a.id.clone()));
                match first {
                    Some(ask_id) => phone.open_card(AskKey {
                        agent,
                        pane: pane_id,
                        ask_id,
                    }),
                    None => phone.show_toast("This pane has no open ask.", false),
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// Moves the pane's chat.
    fn scroll_chat(&mut self, phone: &Phone, action: Action) -> Vec<Command> {
        let chat = self.chat_area(phone);
        let (width, height) = (chat.width, chat.height);
        let Phone { model, view, .. } = phone;
        let (theme, chat_layout) = (view.theme(), view.chat_layout());
        let agents = model.agents();
        let screen = self;
        let Some(log) = agents
            .get(&screen.agent)
            .and_then(|a| a.panes.get(&screen.pane))
        else {
            return Vec::new();
        };
        let style = ChatStyle {
            width,
            thinking_expanded: screen.thinking_expanded,
        };
        let scope = pane_scope(&screen.agent, &screen.pane);
        scroll(
            &mut screen.scroll,
            action,
            ChatView {
                layout: chat_layout,
                scope: &scope,
                entries: &log.entries,
                style,
                height: usize::from(height),
                theme,
            },
        );
        Vec::new()
    }
}

impl Room for PaneScreen {
    /// The pane goes once the bridge closed its task; an intent's trouble shows on its
    /// status line.
    fn heard(&self, _phone: &Phone, news: &Heard) -> Heeded {
        match news {
            Heard::PaneGone { agent, pane } if *agent == self.agent && *pane == self.pane => {
                Heeded::Leave
            }
            Heard::Trouble { .. } => Heeded::ShownHere,
            _ => Heeded::Nothing,
        }
    }

    /// The chat's help names the box's keys a newcomer would not find from the chat: the
    /// person's editor and the box's own help (docs/KEYS.md, "The person's editor"), by the
    /// keys the keymap gives them, so `[keys]` changes the words too.
    fn help_notes(&self, phone: &Phone) -> Vec<String> {
        if self.keys(phone) != keys::CHAT {
            return Vec::new();
        }
        let label = |context, action| phone.keymap().key_label(context, action);
        let into = label(keys::CHAT, Action::FocusInput);
        let mut said = Vec::new();
        if let Some(editor) = label(keys::INPUT, Action::EditOutside) {
            said.push(format!(
                "{editor} writes the message in your own editor ($VISUAL or $EDITOR)"
            ));
        }
        if let Some(help) = label(keys::INPUT, Action::Help) {
            said.push(format!("{help} lists the box's own keys"));
        }
        match (into, said.is_empty()) {
            (_, true) => Vec::new(),
            (Some(into), false) => vec![format!("In the box ({into}): {}.", said.join("; "))],
            (None, false) => vec![format!("In the box: {}.", said.join("; "))],
        }
    }

    fn key_parts() -> &'static [Context] {
        &[
            keys::CHAT,
            keys::INPUT,
            keys::COMMANDS,
            crate::screens::search::keys::SEARCH,
        ]
    }

    fn keys(&self, phone: &Phone) -> Context {
        if self.focus == PaneFocus::Input
            && !commands::offered(phone, &self.agent, &self.pane, &self.commands).is_empty()
        {
            keys::COMMANDS
        } else if self.focus == PaneFocus::Input {
            keys::INPUT
        } else if self.search.editing {
            crate::screens::search::keys::SEARCH
        } else {
            keys::CHAT
        }
    }

    fn act(&mut self, phone: &mut Phone, action: Action) -> Vec<Command> {
        let context = self.keys(phone);
        if context == crate::screens::search::keys::SEARCH {
            return self.search_key(phone, action);
        }
        if context == keys::COMMANDS {
            let count = commands::offered(phone, &self.agent, &self.pane, &self.commands).len();
            let list = &mut self.commands;
            match action {
                Action::Up => {
                    list.selected = list
                        .selected
                        .min(count - 1)
                        .checked_sub(1)
                        .unwrap_or(count - 1);
                    return Vec::new();
                }
                Action::Down => {
                    list.selected = (list.selected.min(count - 1) + 1) % count;
                    return Vec::new();
                }
                Action::Cancel => {
                    list.closed = true;
                    return Vec::new();
                }
                Action::Complete => {
                    let offered = commands::offered(phone, &self.agent, &self.pane, list);
                    if let Some(command) = offered.get(list.selected.min(count - 1)) {
                        *phone.model.draft_mut(&self.agent, &self.pane) =
                            Editor::from_text(&format!("/{} ", command.name));
                    }
                    list.selected = 0;
                    return Vec::new();
                }
                _ => {}
            }
        }
        if action == Action::Send {
            self.commands = commands::CommandList::default();
        }
        self.pane_action(phone, action)
    }

    fn quit(&mut self, phone: &mut Phone) -> Vec<Command> {
        self.search.editing = false;
        phone.quit()
    }

    fn typed(&mut self, phone: &mut Phone, key: &KeyEvent) {
        if self.keys(phone) == crate::screens::search::keys::SEARCH {
            self.search_typed(phone, key);
        } else {
            let width = geometry::input_text_width(phone.size().0);
            let draft = phone.model.draft_mut(&self.agent, &self.pane);
            typing::edit(draft, key, typing::Shape::Rows(width));
            // The list narrows from its top; it opens again once the box starts afresh.
            self.commands.selected = 0;
            if !draft.text().starts_with('/') {
                self.commands.closed = false;
            }
        }
    }

    fn paste(&mut self, phone: &mut Phone, text: &str) {
        if self.keys(phone) == crate::screens::search::keys::SEARCH {
            self.search_paste(phone, text);
        } else {
            self.set_focus(PaneFocus::Input);
            let piece = phone.view.paste_continues();
            let draft = phone.model.draft_mut(&self.agent, &self.pane);
            if piece {
                typing::paste_piece(draft, text, true);
            } else {
                typing::paste(draft, text, true);
            }
        }
    }

    fn click(&mut self, phone: &mut Phone, column: u16, row: u16) -> Vec<Command> {
        let (agent, pane_id) = (self.agent.clone(), self.pane.clone());
        let parts = self.parts(phone);
        if geometry::contains(parts.input, column, row) {
            self.set_focus(PaneFocus::Input);
        } else if geometry::contains(parts.chat, column, row) {
            self.set_focus(PaneFocus::Chat);
        } else if geometry::contains(parts.asks, column, row) {
            return self.pane_action(phone, Action::OpenAsk);
        } else if geometry::contains(parts.settings, column, row) {
            return self.pane_action(phone, Action::Settings);
        } else if geometry::contains(parts.belt, column, row) {
            let belt = phone
                .agents()
                .pane(&agent, &pane_id)
                .map(|p| p.pane.belt.clone())
                .unwrap_or_default();
            let x = column - parts.belt.x;
            if let Some(index) = belt_slots(&belt, parts.belt.width)
                .iter()
                .position(|slot| x >= slot.x && x < slot.x + slot.width)
            {
                return press_belt(phone, &agent, &pane_id, index + 1);
            }
        }
        Vec::new()
    }

    fn wheel(&mut self, phone: &mut Phone, down: bool, _column: u16, _row: u16) -> Vec<Command> {
        let action = if down { Action::Down } else { Action::Up };
        let mut commands = Vec::new();
        for _ in 0..3 {
            commands.extend(self.scroll_chat(phone, action));
        }
        commands
    }

    fn pane_on_screen(&self) -> Option<(String, String)> {
        Some((self.agent.clone(), self.pane.clone()))
    }

    /// A Collie pane lists no DSH message kinds, a bridge's task no belt; the settings key
    /// only where the agent has settings to switch.
    fn lists(&self, phone: &Phone, action: Action) -> bool {
        let can = phone.can(&self.agent);
        match action {
            Action::MessageKind | Action::SendMode => can.message_kinds,
            Action::Belt(_) => can.belt,
            Action::Settings => {
                can.settings
                    && phone
                        .agents()
                        .pane(&self.agent, &self.pane)
                        .is_some_and(|p| !p.pane.settings.is_empty())
            }
            _ => true,
        }
    }

    fn offers(&self, phone: &Phone, action: Action) -> bool {
        let pane = phone.agents().pane(&self.agent, &self.pane);
        let can = phone.can(&self.agent);
        match action {
            Action::OpenAsk => pane.is_some_and(|p| !p.asks().is_empty()),
            Action::Abort if can.task_actions => phone.dsh_turn_running(&self.agent, &self.pane),
            Action::Abort => pane
                .and_then(|p| p.turn())
                .is_some_and(|t| t.state == TurnState::Running),
            Action::ToggleThinking => self.thinking_on_screen(phone),
            // One match or none: there is no other to go to.
            Action::NextMatch | Action::PrevMatch => self.search.count.1 > 1,
            Action::Send => phone
                .draft(&self.agent, &self.pane)
                .is_some_and(|d| !d.is_empty()),
            // While a send waits or is held, the footer hints the keys that act on it: taking
            // it back, and retrying one the person must decide on (one that waits for its agent
            // goes by itself).
            Action::TakeBack => phone
                .outbox()
                .held(&self.agent, &self.pane, |id| phone.send_is_held(id))
                .is_some(),
            Action::Retry => phone
                .outbox()
                .lines(&self.agent, &self.pane)
                .filter(|o| !o.waits_for_agent())
                .filter_map(|o| o.request_id())
                .any(|id| {
                    phone.send_is_held(id)
                        && phone
                            .intents()
                            .get(id)
                            .is_some_and(crate::model::intents::is_retryable)
                }),
            Action::Close if !can.task_actions => {
                crate::screens::layout::agent_can(phone, &self.agent, crate::wire::caps::CLOSE)
            }
            Action::Close => phone.dsh_writable(&self.agent, &self.pane),
            Action::MessageKind | Action::SendMode => {
                can.message_kinds && phone.dsh_writable(&self.agent, &self.pane)
            }
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn belt(labels: &[&str]) -> Vec<BeltButton> {
        labels
            .iter()
            .enumerate()
            .map(|(i, label)| BeltButton {
                id: format!("b{i}"),
                label: (*label).to_string(),
            })
            .collect()
    }

    #[test]
    fn every_belt_button_keeps_its_key_on_screen_however_narrow() {
        let buttons = belt(&[
            "Run the tests",
            "Lint all",
            "Deploy a preview",
            "Roll back 🚀",
        ]);
        let wide = belt_slots(&buttons, 120);
        assert_eq!(wide[2].text, "[F3 Deploy a preview]");
        // 40 columns is the narrowest screen the phone draws (`geometry::is_too_small`).
        for width in [60u16, 50, 40] {
            let slots = belt_slots(&buttons, width);
            assert_eq!(slots.len(), 4);
            let last = slots.last().expect("four");
            assert!(last.text.starts_with("[F4 "), "{width}: {slots:?}");
            assert!(
                last.x + last.width <= width,
                "{width}: the belt runs past the edge: {slots:?}"
            );
            assert!(slots.iter().any(|s| s.text.contains('…')), "{slots:?}");
        }
    }
}
