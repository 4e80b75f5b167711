//! The demo desktop's script: its workspaces and sessions laid out, their history played, and
//! the live turns that go on at a human pace (prompts answered, tools called, a permission wait
//! now and then). The bridge's own rules stay in `host.rs`; this is only what the desktop does.

use super::*;

impl FakeDesktop {
    /// Lays out the demo desktop: directories, workspaces, sessions with a played history, the
    /// tasks that already follow some of them, and the first live moves.
    pub(super) fn furnish(&mut self, now: i64) -> anyhow::Result<()> {
        use anyhow::Context;
        let history_start = now - 3_600_000;
        for workspace in demo::WORKSPACES {
            let path = self.options.root.join(workspace.dir);
            std::fs::create_dir_all(&path)
                .with_context(|| format!("could not make the demo directory {}", path.display()))?;
            let path = path.canonicalize().unwrap_or(path);
            self.workspaces.push(HostWorkspace {
                id: workspace.id.into(),
                title: workspace.title.into(),
                path: path.clone(),
                created_at: history_start,
                updated_at: history_start,
            });
            for session in workspace.sessions {
                self.sessions.insert(
                    session.id.into(),
                    HostSession {
                        id: session.id.into(),
                        workspace_id: workspace.id.into(),
                        title: session.title.into(),
                        cwd: path.clone(),
                        log: VecDeque::new(),
                        // The host's seqs start at 1, as the real host's.
                        next_seq: 1,
                        turn: 0,
                        activity: Activity::Idle,
                        plan: VecDeque::new(),
                        queued: VecDeque::new(),
                        config: ModelConfig {
                            reasoning_effort: Some(
                                if session.effort_downgraded {
                                    "high"
                                } else {
                                    "medium"
                                }
                                .into(),
                            ),
                            ..demo::default_config()
                        },
                        cue_token: 0,
                        writer_held: session.writer_held,
                        loses_first_reply: session.loses_first_reply,
                        lost_once: false,
                        effort_downgraded: session.effort_downgraded,
                        task: None,
                        updated_at: history_start,
                        turns_planned: 0,
                    },
                );
                // The session was named when it started: adopted sessions carry their title in
                // their history, as on the real desktop.
                self.emit_at(
                    session.id,
                    "session/title",
                    title_event(session.title),
                    history_start,
                );
                self.play_history(session.id, workspace.topic, history_start);
                if let Some(task_id) = session.task {
                    // The demo's tasks were created asking for the session's model and effort.
                    let requested = self.sessions.get(session.id).map(|s| s.config.clone());
                    self.follow(task_id, session.id, None, requested, history_start + 60_000);
                    // ... and named after their session (the title it was renamed to).
                    if let Some(task) = self.tasks.get_mut(task_id) {
                        task.title = Some(session.title.to_string());
                    }
                }
            }
        }
        let mut opening_at = 3_000;
        for (session, permission) in [
            ("session-titanic-eda", PermissionPhase::ApprovalRequested),
            ("session-collie-sse", PermissionPhase::InputRequested),
        ] {
            self.schedule(
                opening_at,
                Cue::Opening {
                    session: session.into(),
                    permission,
                },
            );
            opening_at += 6_000;
        }
        self.schedule(PULSE_EVERY_MS, Cue::Pulse);
        Ok(())
    }

    /// Plays turns instantly with past times: the history a session had before the bridge.
    fn play_history(&mut self, session_id: &str, topic: &'static Topic, start: i64) {
        let mut at = start;
        for index in 0..HISTORY_TURNS {
            let prompt = topic.prompts[(index as usize) % topic.prompts.len()];
            self.emit_at(session_id, "user/message", user_message(prompt, None), at);
            let permission = match index {
                1 => Some(PermissionPhase::InputRequested),
                2 => Some(PermissionPhase::ApprovalRequested),
                _ => None,
            };
            let Some(steps) = self.plan_for(session_id, None, permission, index == 1) else {
                return;
            };
            for step in steps {
                at += step.gap_ms;
                let waits = matches!(step.body, EventBody::Permission(_));
                self.emit_at(session_id, step.event_type, step.body, at);
                if waits {
                    at += 30_000;
                    let answer = self.desktop_answer(session_id, topic);
                    self.emit_at(session_id, answer.0, answer.1, at);
                }
            }
            at += 120_000;
        }
        if let Some(session) = self.sessions.get_mut(session_id) {
            session.activity = Activity::Idle;
            session.updated_at = at;
        }
    }

    /// The desktop person's answer to the session's permission wait.
    fn desktop_answer(&mut self, session_id: &str, topic: &Topic) -> (&'static str, EventBody) {
        let waiting = self
            .sessions
            .get(session_id)
            .and_then(|session| session.log.back())
            .map(|event| &event.body);
        match waiting {
            Some(EventBody::Permission(permission))
                if permission.phase == PermissionPhase::ApprovalRequested =>
            {
                (
                    "approval/replied",
                    EventBody::Log(LogEvent {
                        data: serde_json::json!({"callId": permission.call_id, "decision": "approved"}),
                        summary: Some("approved by the person on the desktop".into()),
                    }),
                )
            }
            _ => {
                let index = self.rng.random_range(0..topic.answers.len().max(1));
                let answer = topic.answers.get(index).copied().unwrap_or("Yes.");
                ("user/message", user_message(answer, None))
            }
        }
    }

    fn plan_for(
        &mut self,
        session_id: &str,
        reply: Option<String>,
        permission: Option<PermissionPhase>,
        tool_fails: bool,
    ) -> Option<Vec<Step>> {
        let session = self.sessions.get_mut(session_id)?;
        session.turn += 1;
        session.turns_planned += 1;
        let topic = demo::topic_of(&session.workspace_id);
        let observed = observed_config(&session.config, session.effort_downgraded);
        let turn_fails = session.turns_planned % 7 == 0;
        let shape = TurnShape {
            turn: session.turn,
            topic,
            reply,
            observed: &observed,
            permission,
            tool_fails,
            turn_fails,
        };
        Some(plan_turn(&mut self.rng, &shape))
    }

    pub(super) fn schedule(&mut self, after_ms: i64, cue: Cue) {
        self.cues += 1;
        let due = self.clock.elapsed_ms() + after_ms;
        self.agenda.insert((due, self.cues), cue);
    }

    /// Plays the cues that are due by the virtual clock.
    pub(crate) fn tick(&mut self) {
        let now = self.clock.elapsed_ms();
        for _ in 0..MAX_CUES_PER_TICK {
            let Some(entry) = self.agenda.first_entry() else {
                return;
            };
            if entry.key().0 > now {
                return;
            }
            let cue = entry.remove();
            self.play(cue);
        }
    }

    fn play(&mut self, cue: Cue) {
        match cue {
            Cue::Step { session, token } => self.step(&session, token),
            Cue::Answer { session, token } => self.answer(&session, token),
            Cue::Ready { session } => {
                self.emit(
                    &session,
                    "session/ready",
                    EventBody::Log(LogEvent {
                        data: serde_json::json!({"sessionId": session}),
                        summary: Some("the desktop opened the session".into()),
                    }),
                );
            }
            Cue::Opening {
                session,
                permission,
            } => {
                let idle = self
                    .sessions
                    .get(&session)
                    .is_some_and(|s| s.activity == Activity::Idle);
                if idle {
                    let topic = self.topic_of_session(&session);
                    let prompt = topic.prompts[0];
                    self.emit(&session, "user/message", user_message(prompt, None));
                    self.start_turn(&session, None, Some(permission), true);
                }
            }
            Cue::Pulse => {
                self.pulse();
                self.schedule(PULSE_EVERY_MS, Cue::Pulse);
            }
        }
    }

    fn topic_of_session(&self, session_id: &str) -> &'static Topic {
        self.sessions
            .get(session_id)
            .map_or(&demo::RUST, |session| demo::topic_of(&session.workspace_id))
    }

    /// Now and then the person starts a turn on the desktop in an idle, followed session.
    fn pulse(&mut self) {
        let idle: Vec<String> = self
            .sessions
            .values()
            .filter(|s| s.activity == Activity::Idle && s.task.is_some() && !s.writer_held)
            .map(|s| s.id.clone())
            .collect();
        if idle.is_empty() || !self.rng.random_bool(0.5) {
            return;
        }
        let pick = idle[self.rng.random_range(0..idle.len())].clone();
        let topic = self.topic_of_session(&pick);
        let prompt = topic.prompts[self.rng.random_range(0..topic.prompts.len())];
        self.emit(&pick, "user/message", user_message(prompt, None));
        let permission = match self.rng.random_range(0..4) {
            0 => Some(PermissionPhase::InputRequested),
            1 => Some(PermissionPhase::ApprovalRequested),
            _ => None,
        };
        let fails = self.rng.random_bool(0.3);
        self.start_turn(&pick, None, permission, fails);
    }

    pub(super) fn start_turn(
        &mut self,
        session_id: &str,
        reply: Option<String>,
        permission: Option<PermissionPhase>,
        tool_fails: bool,
    ) {
        let Some(steps) = self.plan_for(session_id, reply, permission, tool_fails) else {
            return;
        };
        let Some(session) = self.sessions.get_mut(session_id) else {
            return;
        };
        session.plan = steps.into();
        session.activity = Activity::Running;
        session.cue_token += 1;
        let token = session.cue_token;
        let gap = session.plan.front().map_or(0, |step| step.gap_ms);
        self.schedule(
            gap,
            Cue::Step {
                session: session_id.into(),
                token,
            },
        );
    }

    fn step(&mut self, session_id: &str, token: u64) {
        let Some(session) = self.sessions.get_mut(session_id) else {
            return;
        };
        if session.cue_token != token || session.activity != Activity::Running {
            return;
        }
        let Some(step) = session.plan.pop_front() else {
            self.turn_over(session_id);
            return;
        };
        let wait = match &step.body {
            EventBody::Permission(permission) => Some(match permission.phase {
                PermissionPhase::ApprovalRequested => WaitKind::Approval,
                _ => WaitKind::Input,
            }),
            _ => None,
        };
        self.emit(session_id, step.event_type, step.body);
        let Some(session) = self.sessions.get_mut(session_id) else {
            return;
        };
        if let Some(kind) = wait {
            session.activity = Activity::Waiting(kind);
            let token = session.cue_token;
            let after = self
                .rng
                .random_range(DESKTOP_ANSWER_MS.0..=DESKTOP_ANSWER_MS.1);
            self.schedule(
                after,
                Cue::Answer {
                    session: session_id.into(),
                    token,
                },
            );
            return;
        }
        match session.plan.front().map(|next| next.gap_ms) {
            Some(gap) => {
                let token = session.cue_token;
                self.schedule(
                    gap,
                    Cue::Step {
                        session: session_id.into(),
                        token,
                    },
                );
            }
            None => self.turn_over(session_id),
        }
    }

    /// The turn ended: the session is idle, and the next queued prompt starts.
    pub(super) fn turn_over(&mut self, session_id: &str) {
        let Some(session) = self.sessions.get_mut(session_id) else {
            return;
        };
        session.activity = Activity::Idle;
        if let Some(prompt) = session.queued.pop_front() {
            let reply = self.reply_to(session_id, &prompt.text);
            self.start_turn(session_id, Some(reply), None, false);
        }
    }

    fn answer(&mut self, session_id: &str, token: u64) {
        let Some(session) = self.sessions.get(session_id) else {
            return;
        };
        if session.cue_token != token || !matches!(session.activity, Activity::Waiting(_)) {
            return;
        }
        let topic = self.topic_of_session(session_id);
        let (event_type, body) = self.desktop_answer(session_id, topic);
        self.emit(session_id, event_type, body);
        let Some(session) = self.sessions.get_mut(session_id) else {
            return;
        };
        session.activity = Activity::Running;
        let token = session.cue_token;
        let gap = session.plan.front().map_or(0, |step| step.gap_ms);
        self.schedule(
            gap,
            Cue::Step {
                session: session_id.into(),
                token,
            },
        );
    }

    pub(super) fn reply_to(&self, session_id: &str, prompt: &str) -> String {
        let topic = self.topic_of_session(session_id);
        let excerpt: String = prompt.chars().take(80).collect();
        let more = if prompt.chars().count() > 80 {
            "…"
        } else {
            ""
        };
        format!("{}: “{excerpt}{more}”. {}", topic.ack, topic.replies[0])
    }
}
