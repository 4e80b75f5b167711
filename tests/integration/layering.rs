//! The layers of docs/ARCHITECTURE.md, kept by a test: every file of `src/` and `crates/*/src/`
//! is read with `syn`, every path it names inside its crate (`crate::…`, `super::…`, `self::…`,
//! in `use` lines and in code) is resolved to the module it points at, and a path that runs
//! against the arrows fails with the file, the line and both layers.
//!
//! Beside the arrows it keeps three house rules:
//! - only the drawing layers (the kit, the rooms' draw halves, the shell) and the runner draw:
//!   `ratatui::Frame`, widgets and buffers are named nowhere else;
//! - the pure layers do no I/O: no files, sockets, processes or tokio in wire, look, app, the
//!   rooms, ui or the shell;
//! - no two sibling files import each other (a cycle inside a folder is a cycle all the same).
//!
//! It also stands in for rustc's dead-code warning where that is silent: every `pub` item of a
//! crate under `crates/` is named somewhere besides its definition.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The layers, lowest first. A layer may use the ones listed as below it, never the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    /// Shapes, limits and cleaning of both wires (`wire`, and `dsh_wire`, the DSH bridge's).
    Wire,
    /// The one way out to a terminal, a stream or a file: clean, then scrub tokens.
    Out,
    Transport,
    /// Sessions of both protocols, polling, intents, the journal, recording.
    Engine,
    /// The phone's model of a pane's chat, built from events (`chat`).
    Chat,
    /// Text laid out without a terminal: widths, wrapping, markdown, the theme, chat lines.
    Look,
    /// The phone's model apart from its glass (`model`, collie-model): the agents as heard, the
    /// inbox, the cards' state, the intents, the outbox and the words for their outcomes.
    Model,
    /// The glass's state (`app`): what a room may touch, the `Message` in and `Command` out.
    App,
    /// A room's app half: `screens/`, each room's `mod.rs`, `keys.rs` and the rest but its
    /// `draw*.rs`; the `Screen` enum, the stack and the harness.
    Room,
    /// The drawing kit below the rooms' draw halves (`ui`): `Drawn`, `put`, columns, filter,
    /// pop-up.
    Ui,
    /// A room's draw half: each room's `draw*.rs`.
    Draw,
    /// Above the rooms (`shell`): the router (`App`) and the frame's root, which name them.
    Shell,
    /// The terminal loop.
    Tui,
    /// The config file, read once, typed for the layers below.
    Config,
    /// The durable-agent server (`durable`): every agent-side rule and the rules broken on
    /// purpose, whatever drives its world. It names none of its drivers, tests included.
    Agent,
    /// The ACP host (`acp_host`, collie-acp), one driver of the agent: the product end users
    /// run, so it names nothing of the rigs (no demo world, fault, chaos or replay) outside its
    /// tests.
    Acp,
    /// The rigs (`rigs`, collie-sim): the reference agent's play (the other driver: worlds, script),
    /// chaos, replay, the reference DSH bridge, the scripted ACP agent.
    Sim,
    /// Tools for agent authors.
    Check,
    Doctor,
    /// Properties the fuzz targets run (`fuzz_checks`, collie-testkit: test support, it reaches
    /// into several layers on purpose).
    FuzzChecks,
    /// The commands: may use everything.
    Cli,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// What each layer may use besides itself. The arrows of docs/ARCHITECTURE.md, as data.
fn may_use(layer: Layer) -> &'static [Layer] {
    use Layer::*;
    match layer {
        Wire => &[Out],
        Out => &[Wire],
        Transport => &[Wire, Out],
        Engine => &[Wire, Out, Transport],
        Chat => &[Wire],
        Look => &[Wire, Out, Engine, Chat],
        Model => &[Wire, Out, Engine, Chat, Look],
        App => &[Wire, Out, Engine, Chat, Look, Model],
        Room => &[Wire, Out, Engine, Chat, Look, Model, App],
        Ui => &[Wire, Out, Engine, Chat, Look, Model, App],
        Draw => &[Wire, Out, Engine, Chat, Look, Model, App, Room, Ui],
        Shell => &[Wire, Out, Engine, Chat, Look, Model, App, Room, Ui, Draw],
        Tui => &[
            Wire, Out, Transport, Engine, Chat, Look, Model, App, Room, Ui, Shell,
        ],
        Config => &[Wire, Out, Transport, Engine, Chat, Look, Model, App, Room],
        Agent => &[Wire, Out, Transport],
        Acp => &[Wire, Out, Transport, Agent],
        Sim => &[Wire, Out, Transport, Agent],
        Check => &[Wire, Out, Transport],
        Doctor => &[Wire, Out, Transport, Engine],
        FuzzChecks => &[Wire, Out, Engine, Chat, Look, Model, App, Ui],
        Cli => &[
            Wire, Out, Transport, Engine, Chat, Look, Model, App, Room, Ui, Draw, Shell, Tui,
            Config, Agent, Acp, Sim, Check, Doctor,
        ],
    }
}

/// What a layer's tests (`#[cfg(test)]` code) may use besides its arrows, through a
/// dev-dependency: the ACP host's tests lay out a demo world of the rigs (collie-acp's
/// dev-dependency on collie-sim). Never back up an arrow.
fn may_use_in_tests(layer: Layer) -> &'static [Layer] {
    use Layer::*;
    match layer {
        Acp => &[Sim],
        _ => &[],
    }
}

/// The top-level modules of `src/` and their layers; `screens` is split by file below.
const TOP_MODULES: &[(&str, Layer)] = &[
    ("wire", Layer::Wire),
    ("dsh_wire", Layer::Wire),
    ("out", Layer::Out),
    ("transport", Layer::Transport),
    ("engine", Layer::Engine),
    ("chat", Layer::Chat),
    ("look", Layer::Look),
    ("text", Layer::Look),
    ("model", Layer::Model),
    ("app", Layer::App),
    ("screens", Layer::Room),
    ("shell", Layer::Shell),
    ("ui", Layer::Ui),
    ("tui", Layer::Tui),
    ("config", Layer::Config),
    ("durable", Layer::Agent),
    ("acp_host", Layer::Acp),
    ("rigs", Layer::Sim),
    ("check", Layer::Check),
    ("check_acp", Layer::Check),
    ("doctor", Layer::Doctor),
    ("fuzz_checks", Layer::FuzzChecks),
    ("cli", Layer::Cli),
];

/// The layer a module belongs to, from its path inside the crate (`["screens", "home", "draw"]`):
/// a screen room's `draw*.rs` is its draw half, the rest of the room its app half.
fn layer_of(module: &[String]) -> Option<Layer> {
    let first = module.first()?.as_str();
    let third = module.get(2).map(String::as_str);
    if first == "screens"
        && let Some(name) = third
        && (name == "draw" || name.starts_with("draw_"))
    {
        return Some(Layer::Draw);
    }
    TOP_MODULES
        .iter()
        .find(|(name, _)| *name == first)
        .map(|(_, layer)| *layer)
}

/// Paths outside the crate that only the drawing layers may name.
const DRAWING: &[&str] = &[
    "ratatui::Frame",
    "ratatui::Terminal",
    "ratatui::widgets",
    "ratatui::buffer",
    "ratatui::backend",
];

/// Paths outside the crate that mean I/O, which the pure layers never name.
const INPUT_OUTPUT: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::os::unix::net",
    "tokio",
    "reqwest",
    "hyper_util",
    "tokio_rustls",
];

const PURE: &[Layer] = &[
    Layer::Wire,
    Layer::Look,
    Layer::Model,
    Layer::App,
    Layer::Room,
    Layer::Ui,
    Layer::Draw,
    Layer::Shell,
];

/// One path a file names, with where.
#[derive(Debug, Clone)]
struct Named {
    line: usize,
    /// Resolved: inside the crate, relative to its root; outside, as written.
    path: Vec<String>,
    inside: bool,
    /// Named inside a `#[cfg(test)]` module: held to the arrows, but a test may read a file
    /// or a sibling's insides.
    in_test: bool,
}

struct Collector {
    /// The module whose code is being read (grows with inline `mod x { … }`).
    module: Vec<String>,
    named: Vec<Named>,
    /// How many `#[cfg(test)]` modules enclose the code being read.
    tests: usize,
}

impl Collector {
    fn resolve(&self, segments: &[String], line: usize) -> Option<Named> {
        let first = segments.first()?.as_str();
        let (inside, path) = match first {
            "crate" => (true, segments[1..].to_vec()),
            "self" | "super" => {
                let mut base = self.module.clone();
                let mut rest = segments;
                while let Some(head) = rest.first() {
                    match head.as_str() {
                        "self" => {}
                        "super" => {
                            base.pop();
                        }
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                (true, base)
            }
            _ => (false, segments.to_vec()),
        };
        Some(Named {
            line,
            path,
            inside,
            in_test: self.tests > 0,
        })
    }

    fn push(&mut self, segments: Vec<String>, line: usize) {
        if let Some(named) = self.resolve(&segments, line) {
            self.named.push(named);
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut whole = prefix.clone();
                if n.ident != "self" {
                    whole.push(n.ident.to_string());
                }
                self.push(whole, n.ident.span().start().line);
            }
            syn::UseTree::Rename(r) => {
                let mut whole = prefix.clone();
                if r.ident != "self" {
                    whole.push(r.ident.to_string());
                }
                self.push(whole, r.ident.span().start().line);
            }
            syn::UseTree::Glob(g) => {
                self.push(prefix.clone(), g.star_token.spans[0].start().line);
            }
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut prefix = Vec::new();
        self.use_tree(&mut prefix, &item.tree);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_some() {
            let test = item.attrs.iter().any(is_cfg_test);
            self.tests += usize::from(test);
            self.module.push(item.ident.to_string());
            syn::visit::visit_item_mod(self, item);
            self.module.pop();
            self.tests -= usize::from(test);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if path.leading_colon.is_none() && segments.len() > 1 {
            let line = path
                .segments
                .first()
                .map(|s| s.ident.span().start().line)
                .unwrap_or(0);
            self.push(segments, line);
        }
        syn::visit::visit_path(self, path);
    }
}

fn is_cfg_test(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("cfg")
        && attr
            .parse_args::<syn::Ident>()
            .is_ok_and(|word| word == "test")
}

/// One source file: where it is, its module path and what it names.
struct Source {
    file: PathBuf,
    module: Vec<String>,
    named: Vec<Named>,
}

fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs").to_string();
        if stem != "mod" && stem != "lib" && stem != "main" {
            parts.push(stem);
        }
    }
    parts
}

/// Where the sources are: the root package's `src/` and each crate's `crates/*/src/`. A module's
/// path is the same in any of them: each crate keeps its layers' folders and its `lib.rs`
/// re-exports the crates below under their own names, so `crate::wire` means the same module
/// everywhere.
fn source_roots() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![repo.join("src")];
    let crates = repo.join("crates");
    let entries =
        std::fs::read_dir(&crates).unwrap_or_else(|e| panic!("{}: {e}", crates.display()));
    let mut crate_roots: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    crate_roots.sort();
    roots.extend(crate_roots);
    roots
}

fn sources() -> Vec<Source> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for root in source_roots() {
        let mut files = Vec::new();
        walk(&root, &mut files);
        files.sort();
        found.extend(files.into_iter().map(|file| (root.clone(), file)));
    }
    found
        .into_iter()
        .map(|(root, file)| {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let module = module_of(file.strip_prefix(&root).unwrap_or(&file));
            let named = collect(&module, &text)
                .unwrap_or_else(|e| panic!("{}: does not parse: {e}", file.display()));
            Source {
                file: file.strip_prefix(repo).unwrap_or(&file).to_path_buf(),
                module,
                named,
            }
        })
        .collect()
}

/// Every path the code of `module` names.
fn collect(module: &[String], text: &str) -> syn::Result<Vec<Named>> {
    let parsed = syn::parse_file(text)?;
    let mut collector = Collector {
        module: module.to_vec(),
        named: Vec::new(),
        tests: 0,
    };
    collector.visit_file(&parsed);
    Ok(collector.named)
}

/// The paths of `named` that run against the arrows from `module`, as "line: path".
fn against_the_arrows(module: &[String], named: &[Named]) -> Vec<String> {
    let Some(from) = layer_of(module) else {
        return Vec::new();
    };
    named
        .iter()
        .filter(|n| n.inside)
        .filter_map(|n| {
            let to = layer_of(&n.path)?;
            let allowed =
                may_use(from).contains(&to) || (n.in_test && may_use_in_tests(from).contains(&to));
            (to != from && !allowed).then(|| {
                format!(
                    "{}: {from} may not use {to}: crate::{}",
                    n.line,
                    n.path.join("::")
                )
            })
        })
        .collect()
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

fn starts_with(path: &[String], prefix: &str) -> bool {
    let prefix: Vec<&str> = prefix.split("::").collect();
    path.len() >= prefix.len() && path.iter().zip(&prefix).all(|(a, b)| a == b)
}

#[test]
fn the_arrows_have_no_cycle() {
    // Each layer uses only layers listed before it in the enum, so no path can come back.
    use Layer::*;
    let all = [
        Wire, Out, Transport, Engine, Chat, Look, App, Ui, Tui, Config, Agent, Acp, Sim, Check,
        Doctor, FuzzChecks, Cli,
    ];
    for layer in all {
        for below in may_use_in_tests(layer) {
            assert!(
                !may_use(*below).contains(&layer) && !may_use(layer).contains(below),
                "{layer}'s tests may use {below}, which uses {layer} (or is an arrow already)"
            );
        }
        for below in may_use(layer) {
            let back = may_use(*below).contains(&layer);
            // wire and out are one floor: cleaning is wire, the way out uses it, and wire's
            // writers go out through it.
            let one_floor = matches!((layer, *below), (Wire, Out) | (Out, Wire));
            assert!(!back || one_floor, "{layer} and {below} may use each other");
        }
    }
}

#[test]
fn no_import_runs_against_the_arrows() {
    let mut wrong = Vec::new();
    for source in sources() {
        for line in against_the_arrows(&source.module, &source.named) {
            wrong.push(format!("{}:{line}", source.file.display()));
        }
    }
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "imports against the arrows (docs/ARCHITECTURE.md):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_reader_catches_every_way_of_naming_a_path() {
    // A made-up app file naming ui four ways: a use line, a group, super::super, and a path
    // in code; and a room's mod.rs naming its own draw.rs. Each is caught, with its line.
    let module: Vec<String> = ["app", "made_up"].map(String::from).to_vec();
    let text = "use crate::ui::filter;\n\
                use crate::{look::wrap, ui::put};\n\
                fn f() {\n\
                    super::super::ui::put();\n\
                    let _ = crate::screens::home::draw::draw;\n\
                }\n";
    let named = collect(&module, text).expect("parses");
    let wrong = against_the_arrows(&module, &named);
    assert_eq!(
        wrong,
        [
            "1: App may not use Ui: crate::ui::filter",
            "2: App may not use Ui: crate::ui::put",
            "4: App may not use Ui: crate::ui::put",
            "5: App may not use Draw: crate::screens::home::draw::draw",
        ]
    );
    let room: Vec<String> = ["screens", "home"].map(String::from).to_vec();
    let named = collect(
        &room,
        "use self::draw::draw;\nuse super::pane::PaneScreen;\n",
    )
    .expect("parses");
    assert_eq!(
        against_the_arrows(&room, &named),
        ["1: Room may not use Draw: crate::screens::home::draw::draw"]
    );
}

#[test]
fn only_the_drawing_layers_draw_and_the_pure_layers_do_no_io() {
    let mut wrong = Vec::new();
    for source in sources() {
        let Some(layer) = layer_of(&source.module) else {
            continue;
        };
        for named in source.named.iter().filter(|n| !n.inside && !n.in_test) {
            if !matches!(layer, Layer::Ui | Layer::Draw | Layer::Shell)
                && layer != Layer::Tui
                && layer != Layer::Cli
                && layer != Layer::FuzzChecks
                && DRAWING.iter().any(|p| starts_with(&named.path, p))
            {
                wrong.push(format!(
                    "{}:{}: {layer} draws: {}",
                    source.file.display(),
                    named.line,
                    named.path.join("::")
                ));
            }
            if PURE.contains(&layer) && INPUT_OUTPUT.iter().any(|p| starts_with(&named.path, p)) {
                wrong.push(format!(
                    "{}:{}: {layer} does I/O: {}",
                    source.file.display(),
                    named.line,
                    named.path.join("::")
                ));
            }
        }
    }
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_two_sibling_files_import_each_other() {
    // Which sibling modules each file names: `a/b.rs` naming `a::c::…` names its sibling `c`.
    let mut names: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let sources = sources();
    let is_folder: BTreeSet<Vec<String>> = sources
        .iter()
        .filter(|s| s.file.ends_with("mod.rs"))
        .map(|s| s.module.clone())
        .collect();
    for source in &sources {
        if source.module.is_empty() || is_folder.contains(&source.module) {
            // A folder's mod.rs is the parent of its files, not their sibling.
            continue;
        }
        let parent = &source.module[..source.module.len() - 1];
        for named in source.named.iter().filter(|n| n.inside && !n.in_test) {
            if named.path.len() > parent.len() && named.path.starts_with(parent) {
                let sibling = named.path[..=parent.len()].to_vec();
                if sibling != source.module && !is_folder.contains(&sibling) {
                    names
                        .entry(source.module.clone())
                        .or_default()
                        .insert(sibling);
                }
            }
        }
    }
    let mut cycles = Vec::new();
    for (a, named) in &names {
        for b in named {
            if a < b && names.get(b).is_some_and(|back| back.contains(a)) {
                cycles.push(format!("{} <-> {}", a.join("::"), b.join("::")));
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "sibling files that import each other:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn every_source_file_has_a_layer() {
    let lost: Vec<String> = sources()
        .iter()
        .filter(|s| !s.module.is_empty() && layer_of(&s.module).is_none())
        .map(|s| s.file.display().to_string())
        .collect();
    assert!(
        lost.is_empty(),
        "files in no layer (add them to layer_of and docs/ARCHITECTURE.md):\n{}",
        lost.join("\n")
    );
}

#[test]
fn every_module_the_map_names_is_in_the_tree() {
    let roots = source_roots();
    let dead: Vec<&str> = TOP_MODULES
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| {
            !roots.iter().any(|src| {
                src.join(name).join("mod.rs").is_file() || src.join(format!("{name}.rs")).is_file()
            })
        })
        .collect();
    assert!(
        dead.is_empty(),
        "layer_of maps modules that are gone (take them out of TOP_MODULES): {dead:?}"
    );
}

/// A room (`screens/<name>/`, both halves) touches its own state and the `Phone`, never the
/// `App` that holds the stack of screens: its app half asks for another screen with
/// `Phone::open` and `Phone::back`, so the router stays the one place that routes, and its
/// draw half (`Drawn`) reads the `Phone` it is handed.
#[test]
fn a_room_touches_only_itself_and_the_phone() {
    let mut found = Vec::new();
    for source in sources() {
        // Both halves: the room's keys act on the Phone, its drawing reads the Phone.
        if !starts_with(&source.module, "screens") {
            continue;
        }
        for named in &source.named {
            if named.inside && !named.in_test && starts_with(&named.path, "shell") {
                found.push(format!("{}:{}", source.file.display(), named.line));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a room, or its drawing, names the App (it may touch only itself and the Phone):\n{}",
        found.join("\n")
    );
}

/// The names of the `pub` items of one file, with their lines.
struct PubItems(Vec<(String, usize)>);

impl PubItems {
    fn push(&mut self, vis: &syn::Visibility, ident: &syn::Ident) {
        if matches!(vis, syn::Visibility::Public(_)) {
            self.0.push((ident.to_string(), ident.span().start().line));
        }
    }
}

impl<'ast> Visit<'ast> for PubItems {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.push(&item.vis, &item.sig.ident);
        syn::visit::visit_item_fn(self, item);
    }
    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.push(&item.vis, &item.sig.ident);
        syn::visit::visit_impl_item_fn(self, item);
    }
    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        self.push(&item.vis, &item.ident);
    }
    fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
        self.push(&item.vis, &item.ident);
    }
    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        self.push(&item.vis, &item.ident);
    }
    fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
        self.push(&item.vis, &item.ident);
    }
    fn visit_item_trait(&mut self, item: &'ast syn::ItemTrait) {
        self.push(&item.vis, &item.ident);
    }
    fn visit_item_type(&mut self, item: &'ast syn::ItemType) {
        self.push(&item.vis, &item.ident);
    }
}

/// rustc's dead-code warning is silent on a library's `pub` items, and each crate under
/// `crates/` makes `pub` what the crates above, the tests and the benches use (docs/
/// ARCHITECTURE.md, "What is `pub`"). So a `pub` item of a crate must be named somewhere besides
/// its own definition: in its crate, in a crate above, a test, a bench or a fuzz target. The
/// check goes by name, so it is approximate: a name also used for something else can hide a dead
/// item, but a live item is never reported.
#[test]
fn every_pub_item_of_a_crate_is_named_somewhere() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in ["src", "crates", "tests", "benches", "fuzz/fuzz_targets"] {
        let dir = repo.join(folder);
        if dir.is_dir() {
            walk(&dir, &mut files);
        }
    }
    files.sort();
    let mut uses: BTreeMap<String, usize> = BTreeMap::new();
    let mut public = Vec::new();
    for file in &files {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for word in text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
        {
            *uses.entry(word.to_string()).or_default() += 1;
        }
        if file.starts_with(repo.join("crates")) {
            let parsed = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("{}: does not parse: {e}", file.display()));
            let mut items = PubItems(Vec::new());
            items.visit_file(&parsed);
            let shown = file
                .strip_prefix(repo)
                .unwrap_or(file)
                .display()
                .to_string();
            public.extend(
                items
                    .0
                    .into_iter()
                    .map(|(name, line)| (shown.clone(), line, name)),
            );
        }
    }
    assert!(!public.is_empty(), "no pub item found under crates/");
    let dead: Vec<String> = public
        .iter()
        .filter(|(_, _, name)| uses.get(name).copied().unwrap_or(0) < 2)
        .map(|(file, line, name)| format!("{file}:{line}: {name}"))
        .collect();
    assert!(
        dead.is_empty(),
        "pub items named nowhere but where they are defined (delete them, or use them):\n{}",
        dead.join("\n")
    );
}

/// The phone's state (`app/`) names no room: the rooms' state it keeps (cards, what floats,
/// the wire log) is its own, and a room asks for another screen with a `Goto`, data only. Only
/// the shell above (`shell/`: the router and the frame's root) names the rooms.
#[test]
fn the_phone_names_no_room() {
    let mut found = Vec::new();
    for source in sources() {
        if !starts_with(&source.module, "app") {
            continue;
        }
        for named in &source.named {
            if named.inside && !named.in_test && starts_with(&named.path, "screens") {
                found.push(format!(
                    "{}:{}: crate::{}",
                    source.file.display(),
                    named.line,
                    named.path.join("::")
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the phone names a room (keep its state in app, ask with a Goto):\n{}",
        found.join("\n")
    );
}

/// A room's app half never names the stack's `Screen`: it asks to go somewhere with
/// `Phone::open(Goto::…)`, and the router makes the screen.
#[test]
fn a_room_opens_screens_with_a_goto() {
    let mut found = Vec::new();
    for source in sources() {
        if !starts_with(&source.module, "screens")
            || source.module.len() < 2
            || layer_of(&source.module) != Some(Layer::Room)
        {
            continue;
        }
        for named in &source.named {
            let names_screen = named.path[..] == ["screens", "Screen"];
            if named.inside && !named.in_test && names_screen {
                found.push(format!("{}:{}", source.file.display(), named.line));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a room names the Screen enum (ask with Phone::open(Goto::…)):\n{}",
        found.join("\n")
    );
}

/// The phone's own behaviour is written in the phone's folder, `crates/tui/src/app/`; a room's
/// behaviour in the room, as its methods or free functions taking `&mut Phone`
/// (docs/ARCHITECTURE.md, "The rooms"). An inherent impl can only be in the crate that
/// defines `Phone`, so walking collie-tui finds every one.
#[test]
fn no_impl_phone_outside_the_phone() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/tui/src");
    let home = src.join("app");
    let mut files = Vec::new();
    walk(&src, &mut files);
    assert!(!files.is_empty(), "no sources under {}", src.display());
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&home)) {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let parsed = syn::parse_file(&text)
            .unwrap_or_else(|e| panic!("{}: does not parse: {e}", file.display()));
        for item in &parsed.items {
            if let syn::Item::Impl(block) = item
                && block.trait_.is_none()
                && let syn::Type::Path(ty) = &*block.self_ty
                && ty.path.segments.last().is_some_and(|s| s.ident == "Phone")
            {
                found.push(format!(
                    "{}:{}",
                    file.display(),
                    block.impl_token.span.start().line
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "impl Phone outside crates/tui/src/app/:\n{}",
        found.join("\n")
    );
}

/// The phone's model stands on no terminal (docs/ARCHITECTURE.md, "The model"): collie-model
/// and every crate of this workspace below it name neither ratatui nor crossterm, in their
/// manifests or their code, so the headless commands and any other face can use it alone.
#[test]
fn the_model_stands_on_no_terminal() {
    const TERMINAL: &[&str] = &["ratatui", "crossterm"];
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seen = BTreeSet::new();
    let mut next = vec!["model".to_string()];
    let mut found = Vec::new();
    while let Some(name) = next.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let manifest = repo.join("crates").join(&name).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest)
            .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        let parsed: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        let dependencies = parsed
            .get("dependencies")
            .and_then(toml::Value::as_table)
            .cloned()
            .unwrap_or_default();
        for (dependency, spec) in &dependencies {
            if TERMINAL.contains(&dependency.as_str()) {
                found.push(format!("crates/{name}/Cargo.toml depends on {dependency}"));
            }
            if let Some(path) = spec.get("path").and_then(toml::Value::as_str)
                && let Some(below) = path.strip_prefix("../")
            {
                next.push(below.to_string());
            }
        }
    }
    for source in sources() {
        let in_model = source.file.starts_with("crates/model");
        if !in_model {
            continue;
        }
        for named in &source.named {
            if !named.inside
                && named
                    .path
                    .first()
                    .is_some_and(|first| TERMINAL.contains(&first.as_str()))
            {
                found.push(format!(
                    "{}:{}: {}",
                    source.file.display(),
                    named.line,
                    named.path.join("::")
                ));
            }
        }
    }
    assert!(seen.contains("wire") && seen.contains("client"), "{seen:?}");
    assert!(
        found.is_empty(),
        "the model reaches a terminal:\n{}",
        found.join("\n")
    );
}

/// The headless commands (`src/cli/headless`) stand on the model alone: they name nothing of
/// the terminal crate (its glass state, look, rooms, shell, kit, runner or config), so what
/// they build an answer with and the words they print are the model's, as the phone's are.
#[test]
fn the_headless_commands_name_nothing_of_the_glass() {
    const GLASS: &[&str] = &["app", "look", "screens", "shell", "ui", "tui", "config"];
    let mut found = Vec::new();
    let mut read = 0;
    for source in sources() {
        if !source.file.starts_with("src/cli/headless") {
            continue;
        }
        read += 1;
        for named in &source.named {
            if named.inside && GLASS.iter().any(|module| starts_with(&named.path, module)) {
                found.push(format!(
                    "{}:{}: crate::{}",
                    source.file.display(),
                    named.line,
                    named.path.join("::")
                ));
            }
        }
    }
    assert!(read > 5, "the headless commands were read: {read} files");
    assert!(
        found.is_empty(),
        "a headless command names the terminal crate (use the model's):\n{}",
        found.join("\n")
    );
}

/// The model's fields are its own (docs/ARCHITECTURE.md, "The model"): `PhoneModel` declares
/// no public field, so the glass and the headless commands change it only through its
/// methods, each of which keeps a rule; the compiler then refuses any other write.
#[test]
fn the_phone_model_keeps_its_fields() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/model/src/model/phone_model.rs");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let fields: Vec<&syn::Field> = parsed
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) if s.ident == "PhoneModel" => Some(s.fields.iter()),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(
        fields.len() > 5,
        "PhoneModel was read: {} fields",
        fields.len()
    );
    let open: Vec<String> = fields
        .iter()
        .filter(|f| !matches!(f.vis, syn::Visibility::Inherited))
        .map(|f| f.ident.as_ref().map_or_else(String::new, |i| i.to_string()))
        .collect();
    assert!(
        open.is_empty(),
        "PhoneModel fields open to others: {open:?}"
    );
}

/// The source files under the folders of collie-tui named, where the rooms (and what floats)
/// are: more than ten, or the walk read nothing.
fn room_files(folders: &[&str]) -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/tui/src");
    let mut files = Vec::new();
    for folder in folders {
        walk(&src.join(folder), &mut files);
    }
    assert!(
        files.len() > 10,
        "the rooms were read: {} files",
        files.len()
    );
    files
}

/// What the agents said and what became of each intent is written by their news alone: only
/// the shell, which takes the engine's news, calls the model's methods that write them; a room
/// or an overlay reads them (docs/ARCHITECTURE.md, "The rooms").
#[test]
fn only_the_news_writes_what_the_agents_said() {
    const NEWS_ONLY: &[&str] = &[
        "agent_mut",
        "note_intent",
        "intents_mut",
        "dsh_view_or_new",
        "forget_card",
        "carry_closed_task_chats",
    ];
    let files = room_files(&["screens", "app/overlay"]);
    let mut found = Vec::new();
    for file in &files {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (at, line) in text.lines().enumerate() {
            for name in NEWS_ONLY {
                if line.contains(&format!(".{name}(")) {
                    found.push(format!("{}:{}: {name}", file.display(), at + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "a room writes what only the news may write:\n{}",
        found.join("\n")
    );
}

/// What a room reads of its surroundings (`app/view_context.rs`: the settings, the clock, the
/// size, the terminal's facts, the wire log) it never writes: the shell keeps them, and the
/// phone's own behaviour changes the settings the person changes there (docs/ARCHITECTURE.md,
/// "The phone"). No room, in either half and outside its tests, calls a method of the view
/// context that takes `&mut self`; the fields are private, so the compiler refuses the rest.
#[test]
fn a_room_reads_the_view_context_and_never_writes_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/tui/src");
    let file = src.join("app/view_context.rs");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut writers = BTreeSet::new();
    let mut open_fields = Vec::new();
    for item in &parsed.items {
        match item {
            syn::Item::Impl(block)
                if matches!(&*block.self_ty, syn::Type::Path(ty)
                    if ty.path.segments.last().is_some_and(|s| s.ident == "ViewContext")) =>
            {
                for inner in &block.items {
                    if let syn::ImplItem::Fn(method) = inner
                        && let Some(syn::FnArg::Receiver(receiver)) = method.sig.inputs.first()
                        && receiver.mutability.is_some()
                    {
                        writers.insert(method.sig.ident.to_string());
                    }
                }
            }
            syn::Item::Struct(s) if s.ident == "ViewContext" => {
                open_fields.extend(
                    s.fields
                        .iter()
                        .filter(|f| !matches!(f.vis, syn::Visibility::Inherited))
                        .map(|f| f.ident.as_ref().map_or_else(String::new, |i| i.to_string())),
                );
            }
            _ => {}
        }
    }
    assert!(
        writers.len() > 3,
        "the view context's writers were read: {writers:?}"
    );
    assert!(
        open_fields.is_empty(),
        "ViewContext fields open to others: {open_fields:?}"
    );

    struct Calls<'a> {
        writers: &'a BTreeSet<String>,
        found: Vec<(String, usize)>,
    }
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            if !item.attrs.iter().any(is_cfg_test) {
                syn::visit::visit_item_mod(self, item);
            }
        }
        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            if !item.attrs.iter().any(is_cfg_test) {
                syn::visit::visit_item_fn(self, item);
            }
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            let name = call.method.to_string();
            if self.writers.contains(&name) {
                self.found.push((name, call.method.span().start().line));
            }
            syn::visit::visit_expr_method_call(self, call);
        }
    }
    let files = room_files(&["screens"]);
    let mut found = Vec::new();
    for file in &files {
        if file.ends_with("harness.rs") {
            // The rooms' test harness, compiled for tests alone, sets the scene.
            continue;
        }
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut calls = Calls {
            writers: &writers,
            found: Vec::new(),
        };
        calls.visit_file(&parsed);
        found.extend(
            calls
                .found
                .into_iter()
                .map(|(name, line)| format!("{}:{line}: {name}", file.display())),
        );
    }
    assert!(
        found.is_empty(),
        "a room writes the view context (only the shell and the phone's own may):\n{}",
        found.join("\n")
    );
}
