//! Project trust: the store and the fingerprint of project definitions (SPEC.md §3).
