//! `collie-phone doctor`: why can the phone not reach an agent? One read-only pass, step by step.
