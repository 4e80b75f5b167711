//! The screens and their own state (selection, scroll, focus), stacked: Home at the bottom,
//! the screen shown on top. Esc goes back one.

use crate::look::chat_scroll::ChatScroll;
use super::inbox::AskKey;
use super::list::{Filter, ListCursor};
use crate::engine::ExchangeRecord;

#[derive(Debug, Clone, Default)]
pub struct HomeScreen {
    pub agents: ListCursor,
    pub inbox: ListCursor,
    /// True when the selection is in "Needs your answer", false in the agents.
    pub in_inbox: bool,
    pub filter: Filter,
}

/// The workspaces, tabs and panes of one agent.
#[derive(Debug, Clone)]
pub struct LayoutScreen {
    pub agent: String,
    pub cursor: ListCursor,
    pub filter: Filter,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneFocus {
    Chat,
    Input,
}

#[derive(Debug, Clone)]
pub struct PaneScreen {
    pub agent: String,
    pub pane: String,
    pub focus: PaneFocus,
    pub scroll: ChatScroll,
    pub thinking_expanded: bool,
}

#[derive(Debug, Clone, Default)]
pub struct NewScreen {
    pub cursor: ListCursor,
    pub filter: Filter,
}

#[derive(Debug, Clone)]
pub struct HistoryScreen {
    pub agent: String,
    pub cursor: ListCursor,
    pub filter: Filter,
}

#[derive(Debug, Clone)]
pub struct ConversationScreen {
    pub agent: String,
    pub conversation: String,
    pub title: String,
    pub scroll: ChatScroll,
    pub thinking_expanded: bool,
    /// Set once the view was placed at the first item; history reads oldest first.
    pub placed: bool,
}

/// The wire inspector: every exchange with the agents, newest at the bottom.
#[derive(Debug, Clone, Default)]
pub struct InspectorScreen {
    /// The selected exchange by its number; None follows the newest.
    pub selected: Option<u64>,
    /// The first exchange drawn, by its number, while not following.
    pub top: Option<u64>,
    pub filter: Filter,
    /// What the last export came to.
    pub note: Option<InspectorNote>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InspectorNote {
    pub text: String,
    pub trouble: bool,
}

/// One exchange of the wire inspector, kept whole even after the list lets it go.
#[derive(Debug, Clone)]
pub struct ExchangeScreen {
    pub number: u64,
    pub record: Box<ExchangeRecord>,
    /// The request body as shown: laid out when it is JSON.
    pub request_text: String,
    pub reply_text: String,
    /// Lines scrolled past.
    pub scroll: usize,
}

#[derive(Debug, Clone)]
pub enum Screen {
    Home(HomeScreen),
    Layout(LayoutScreen),
    Pane(PaneScreen),
    /// The card's state lives in `App::cards`, so what was typed survives leaving it.
    Card(AskKey),
    New(NewScreen),
    History(HistoryScreen),
    Conversation(ConversationScreen),
    Inspector(InspectorScreen),
    Exchange(ExchangeScreen),
    /// The New page's form for a DSH bridge.
    DshForm(Box<super::dsh_form::DshFormScreen>),
}

impl Screen {
    /// The agent this screen is about, if one.
    pub fn agent(&self) -> Option<&str> {
        match self {
            Screen::Home(_) | Screen::New(_) | Screen::Inspector(_) | Screen::Exchange(_) => None,
            Screen::Layout(s) => Some(&s.agent),
            Screen::Pane(s) => Some(&s.agent),
            Screen::Card(key) => Some(&key.agent),
            Screen::History(s) => Some(&s.agent),
            Screen::Conversation(s) => Some(&s.agent),
            Screen::DshForm(s) => Some(&s.agent),
        }
    }

    pub fn filter_mut(&mut self) -> Option<&mut Filter> {
        match self {
            Screen::Home(s) => Some(&mut s.filter),
            Screen::Layout(s) => Some(&mut s.filter),
            Screen::New(s) => Some(&mut s.filter),
            Screen::History(s) => Some(&mut s.filter),
            Screen::Inspector(s) => Some(&mut s.filter),
            _ => None,
        }
    }

    pub fn filter(&self) -> Option<&Filter> {
        match self {
            Screen::Home(s) => Some(&s.filter),
            Screen::Layout(s) => Some(&s.filter),
            Screen::New(s) => Some(&s.filter),
            Screen::History(s) => Some(&s.filter),
            Screen::Inspector(s) => Some(&s.filter),
            _ => None,
        }
    }
}

/// The stack of screens; never empty.
#[derive(Debug, Clone)]
pub struct Navigation {
    stack: Vec<Screen>,
}

impl Default for Navigation {
    fn default() -> Self {
        Self {
            stack: vec![Screen::Home(HomeScreen::default())],
        }
    }
}

impl Navigation {
    pub fn top(&self) -> &Screen {
        // The stack always holds Home at the bottom.
        self.stack.last().unwrap_or_else(|| unreachable_home())
    }

    pub fn top_mut(&mut self) -> &mut Screen {
        if self.stack.is_empty() {
            self.stack.push(Screen::Home(HomeScreen::default()));
        }
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    pub fn push(&mut self, screen: Screen) {
        self.stack.push(screen);
    }

    /// Goes back one screen; Home stays.
    pub fn pop(&mut self) -> Option<Screen> {
        if self.stack.len() > 1 {
            self.stack.pop()
        } else {
            None
        }
    }

    /// Goes back to Home.
    pub fn home(&mut self) {
        self.stack.truncate(1);
    }

    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    pub fn screens(&self) -> &[Screen] {
        &self.stack
    }

    pub fn screens_mut(&mut self) -> &mut [Screen] {
        &mut self.stack
    }

    /// Drops every screen above the bottom one that `keep` refuses.
    pub fn retain(&mut self, mut keep: impl FnMut(&Screen) -> bool) {
        let mut first = true;
        self.stack.retain(|screen| {
            let keep_it = first || keep(screen);
            first = false;
            keep_it
        });
    }
}

fn unreachable_home() -> &'static Screen {
    static HOME: std::sync::OnceLock<Screen> = std::sync::OnceLock::new();
    HOME.get_or_init(|| Screen::Home(HomeScreen::default()))
}
