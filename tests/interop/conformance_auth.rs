//! The official conformance harness's authorization scenarios, one per grant and per behaviour
//! of the 2026 path, run through the same adapter as `scripts/conformance` (which runs them all):
//! `mcpdeck call t test-tool --login` against the scenario's own loopback authorization and MCP
//! servers (`scripts/conformance-auth-client`). Every check must pass. At `2026-07-28` the
//! harness runs its mock servers at that revision (`--spec-version`), so `server/discover` is
//! what is refused first.

use serde_json::Value;

use super::conformance_harness::{run_at, run_with_env};

/// Every check of `scenario` passes (none fails, some succeed) with each `(setting, spec)`.
fn passes(scenario: &str, runs: &[(&str, Option<&str>)]) {
    if crate::common::peers::conformance().is_none() {
        return;
    }
    for (setting, spec) in runs {
        let checks = run_at(scenario, setting, *spec);
        let failed: Vec<&Value> = checks.iter().filter(|c| c["status"] == "FAILURE").collect();
        assert!(
            failed.is_empty(),
            "{scenario} ({setting:?}, {spec:?}): {}",
            serde_json::to_string_pretty(&failed).unwrap_or_default()
        );
        assert!(
            checks.iter().any(|c| c["status"] == "SUCCESS"),
            "{scenario} ({setting:?}, {spec:?}): no check passed: {checks:?}"
        );
    }
}

const MODERN: Option<&str> = Some("2026-07-28");

/// The 2025 path, `auto` against a 2026 server, and `2026-07-28` against a 2026 server.
const EVERY_PATH: &[(&str, Option<&str>)] = &[("", None), ("auto", MODERN), ("2026-07-28", MODERN)];

#[test]
fn a_refused_discover_starts_sign_in_and_a_403_steps_up_with_the_union_of_scopes() {
    passes("auth/scope-step-up", EVERY_PATH);
}

#[test]
fn repeated_403s_stop_after_the_retry_limit() {
    passes("auth/scope-retry-limit", EVERY_PATH);
}

#[test]
fn a_new_authorization_server_gets_a_new_registration_and_never_the_old_client_id() {
    passes("auth/authorization-server-migration", EVERY_PATH);
}

/// The extensions' scenarios have 2025-era mock servers only.
const EXTENSION: &[(&str, Option<&str>)] = &[("", None), ("auto", None)];

#[test]
fn client_credentials_with_client_secret_basic() {
    passes("auth/client-credentials-basic", EXTENSION);
}

#[test]
fn client_credentials_with_an_es256_private_key_jwt_from_a_0600_key_file() {
    passes("auth/client-credentials-jwt", EXTENSION);
}

#[test]
fn dpop_binds_the_token_and_sends_a_fresh_proof_on_every_request() {
    passes("auth/dpop", EXTENSION);
}

#[test]
fn dpop_nonces_from_the_authorization_server_and_the_mcp_server_are_retried_once() {
    passes("auth/dpop-nonce", EXTENSION);
}

#[test]
fn workload_identity_sends_the_workload_jwt_as_a_jwt_bearer_assertion_from_a_0600_file() {
    passes("auth/wif-jwt-bearer", EXTENSION);
}

#[test]
fn enterprise_managed_authorization_exchanges_the_id_token_for_an_id_jag_then_a_token() {
    passes("auth/enterprise-managed-authorization", EXTENSION);
}

/// A refused JWT-bearer request is final: an expired workload token (`invalid_grant`) and a
/// client the server will not let use the grant (`unauthorized_client`) are each sent once —
/// the harness flags a second JWT-bearer request (`wif-no-retry`) and any other grant after
/// it (`wif-grant-fallback`).
#[test]
fn a_refused_workload_token_is_not_retried_and_no_other_grant_is_tried() {
    if crate::common::peers::conformance().is_none() {
        return;
    }
    for case in ["expired", "unauthorized"] {
        let checks = run_with_env(
            "auth/wif-jwt-bearer",
            "",
            None,
            &[("MCPDECK_CONFORMANCE_WIF_CASE", case)],
        );
        let ids: Vec<&str> = checks.iter().filter_map(|c| c["id"].as_str()).collect();
        assert!(
            ids.contains(&"token-request"),
            "{case}: no token request: {ids:?}"
        );
        let requests = ids.iter().filter(|id| **id == "token-request").count();
        assert_eq!(requests, 1, "{case}: one token request only: {ids:?}");
        for flagged in ["wif-no-retry", "wif-grant-fallback"] {
            assert!(!ids.contains(&flagged), "{case}: {flagged}: {checks:?}");
        }
        if case == "expired" {
            assert!(ids.contains(&"wif-assertion-expired"), "{case}: {ids:?}");
        }
    }
}
