//! `collie-phone check`: a conformance suite that any durable agent can be run against, rule by SPEC rule.
