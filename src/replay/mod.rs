//! Playing back a recording made with `--record`: a fake agent that serves what a real one sent.
