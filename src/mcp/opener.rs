//! The one URL opener of the whole product (sign-in, elicitation URLs, result links) and the
//! one rule for web URLs mcpdeck opens or signs in through: `https`, or `http` on a loopback
//! host (`localhost`, `127.0.0.0/8`, `::1`). Everything else — `file:`, `javascript:`,
//! `vscode:`, plain `http` to another host — is refused with a message naming the scheme.
//!
//! `$BROWSER` is a `:`-separated list of commands, tried in order until one starts. Each command
//! is split on whitespace into a program and its words; a word `%s` is replaced by the URL,
//! otherwise the URL is the last argument. Without `$BROWSER`: `xdg-open` (`open` on macOS).
//! The URL is always one argument, never through a shell; the child gets no terminal (its
//! output would tear the console) and is reaped in the background.

use std::process::{Command, Stdio};

/// Whether `url`'s host is a loopback host: `localhost` (or a name under `.localhost`),
/// an address in `127.0.0.0/8`, or `::1`.
pub fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

/// The rule: `https`, or `http` on a loopback host. The parsed URL, or why not (naming the
/// URL's scheme; the URL itself is never quoted, it may be long or hostile).
pub fn check_web_url(url: &str) -> Result<url::Url, String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("not a URL ({e})"))?;
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(&parsed) => Ok(parsed),
        "http" => Err(
            "a plain `http` URL to a host that is not loopback: only `https` (or `http` on \
             127.0.0.1, ::1 or localhost) is allowed"
                .to_owned(),
        ),
        other => Err(format!(
            "a `{}` URL: only `https` (or `http` on 127.0.0.1, ::1 or localhost) is allowed",
            crate::mcp::sanitize::sanitize_capped(other, 40)
        )),
    }
}

/// Opens `url` with `$BROWSER` (else the platform's opener) after [`check_web_url`]; the
/// program used, or why not.
pub fn open(url: &str) -> Result<String, String> {
    let browser = std::env::var("BROWSER").ok();
    open_with(url, browser.as_deref())
}

/// [`open`] with `browser` standing for `$BROWSER`.
pub fn open_with(url: &str, browser: Option<&str>) -> Result<String, String> {
    let parsed = check_web_url(url).map_err(|why| format!("refused to open {why}"))?;
    let commands = browser_commands(browser);
    let mut last_error = String::from("no browser command");
    for words in &commands {
        let Some((program, rest)) = words.split_first() else {
            continue;
        };
        let mut substituted = false;
        let args: Vec<&str> = rest
            .iter()
            .map(|w| {
                if w == "%s" {
                    substituted = true;
                    parsed.as_str()
                } else {
                    w.as_str()
                }
            })
            .collect();
        let mut command = Command::new(program);
        command.args(args);
        if !substituted {
            command.arg(parsed.as_str());
        }
        let spawned = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match spawned {
            Ok(mut child) => {
                // Reaped in the background: a browser may run for a long time.
                std::thread::spawn(move || child.wait());
                return Ok(crate::mcp::sanitize::sanitize_capped(program, 200));
            }
            Err(e) => {
                last_error = format!(
                    "{}: {}",
                    crate::mcp::sanitize::sanitize_capped(program, 200),
                    e.kind()
                );
            }
        }
    }
    Err(last_error)
}

/// The commands `$BROWSER` names (each as its words), else the platform's opener.
fn browser_commands(browser: Option<&str>) -> Vec<Vec<String>> {
    let listed: Vec<Vec<String>> = browser
        .unwrap_or_default()
        .split(':')
        .map(|c| c.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .filter(|words| !words.is_empty())
        .collect();
    if !listed.is_empty() {
        return listed;
    }
    let fallback = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    vec![vec![fallback.to_owned()]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_is_https_or_loopback_http() {
        assert!(check_web_url("https://example.com/a").is_ok());
        assert!(check_web_url("http://127.0.0.1:9/cb").is_ok());
        assert!(check_web_url("http://127.8.0.1/").is_ok());
        assert!(check_web_url("http://[::1]:80/").is_ok());
        assert!(check_web_url("http://localhost/").is_ok());
        assert!(check_web_url("http://evil.test/").is_err_and(|e| e.contains("`http`")));
        assert!(check_web_url("file:///etc/passwd").is_err_and(|e| e.contains("`file`")));
        assert!(check_web_url("javascript:alert(1)").is_err_and(|e| e.contains("`javascript`")));
        assert!(check_web_url("vscode://x/y").is_err_and(|e| e.contains("`vscode`")));
        assert!(check_web_url("http://localhost.evil.test/").is_err());
        assert!(check_web_url("not a url").is_err());
    }

    #[test]
    fn browser_is_a_colon_list_of_commands() {
        assert_eq!(
            browser_commands(Some("firefox --new-tab %s:lynx")),
            vec![
                vec![
                    "firefox".to_owned(),
                    "--new-tab".to_owned(),
                    "%s".to_owned()
                ],
                vec!["lynx".to_owned()],
            ]
        );
        assert_eq!(browser_commands(Some(" : ")).len(), 1);
    }
}
