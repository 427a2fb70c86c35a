//! The headless command line (SPEC.md §11).
