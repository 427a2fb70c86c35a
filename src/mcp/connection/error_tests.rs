//! Tests of `connection/error.rs`.

use super::*;

#[test]
fn clean_redacts_then_sanitises() {
    let r = Redactor::new(vec![
        "abcd".to_owned(),
        "abcdefgh".to_owned(),
        String::new(),
    ]);
    assert_eq!(
        r.redact("x abcdefgh y abcd"),
        format!("x {REDACTED} y {REDACTED}")
    );
    assert_eq!(clean(&r, "\u{1b}[2J abcd"), format!("␛[2J {REDACTED}"));
    assert!(
        !format!("{r:?}").contains("abcd"),
        "Debug must not show secrets"
    );
}

#[test]
fn class_names_match_serialisation() {
    let e = ConnectError::new(ErrorClass::HttpStatus { code: 307 }, "m");
    let v = serde_json::to_value(&e).expect("serialises");
    assert_eq!(v["class"], "http_status");
    assert_eq!(v["code"], 307);
    assert_eq!(e.class.name(), "http_status");
    let v = serde_json::to_value(ErrorClass::NotMcp { content_type: None }).expect("ok");
    assert_eq!(v["class"], ErrorClass::NotMcp { content_type: None }.name());
}

#[test]
fn exit_codes_follow_the_spec() {
    assert_eq!(
        ErrorClass::AuthRequired {
            code: 401,
            scope: None
        }
        .exit_code(),
        3
    );
    assert_eq!(ErrorClass::Refused.exit_code(), 4);
    assert_eq!(ErrorClass::ServerError { code: -1 }.exit_code(), 5);
    assert_eq!(ErrorClass::Cancelled.exit_code(), 6);
    assert_eq!(ErrorClass::Limit { bound: "x".into() }.exit_code(), 7);
}

#[test]
fn status_prefix_parses_and_drops_body() {
    assert_eq!(
        parse_http_status_prefix("HTTP 400 Bad Request: body"),
        Some(400)
    );
    assert_eq!(parse_http_status_prefix("nope"), None);
    let err = HttpError::UnexpectedServerResponse("HTTP 401 Unauthorized: Bearer s3cret".into());
    let c = classify_http(&err, &Redactor::default()).expect("classified");
    assert_eq!(
        c.class,
        ErrorClass::AuthRequired {
            code: 401,
            scope: None
        }
    );
    assert!(!c.message.contains("s3cret"));
}
