//! The reference DSH bridge (`collie-phone dsh-bridge`): built in the next commits.
