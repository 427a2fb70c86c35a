//! The demo server's tools: `echo`, `add`, `long_task` (progress + cancellation), `weather`
//! (structured output with an output schema) and `image` (a small PNG).
//!
//! Every tool is deterministic (no clock, no randomness, no network) so tests and recordings can
//! rely on its answers. Tool failures the caller can fix are in-band (`isError: true`), never
//! protocol errors.

use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::content::DEMO_PNG_BASE64;
use super::server::{DemoServer, TaskOutcome};

/// Largest `steps` accepted by `long_task`.
pub const MAX_STEPS: u32 = 1000;
/// Largest `delay_ms` accepted by `long_task`.
pub const MAX_DELAY_MS: u64 = 10_000;

/// `echo` arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back unchanged.
    pub text: String,
}

/// `add` arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The first addend.
    pub a: f64,
    /// The second addend.
    pub b: f64,
}

/// `long_task` arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LongTaskArgs {
    /// How many steps to run (1–1000); one progress notification per step.
    #[schemars(range(min = 1, max = 1000))]
    pub steps: u32,
    /// Milliseconds to wait in each step (0–10000).
    #[schemars(range(max = 10_000))]
    #[serde(default = "default_delay")]
    pub delay_ms: u64,
}

fn default_delay() -> u64 {
    200
}

/// `weather` arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WeatherArgs {
    /// The city to report on (any non-empty name; the answer is invented but stable).
    pub city: String,
}

/// `weather`'s structured result; its schema is the tool's `outputSchema`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Weather {
    /// The city as asked.
    pub city: String,
    /// Temperature in degrees Celsius.
    pub celsius: f64,
    /// Relative humidity, 0–100.
    #[schemars(range(max = 100))]
    pub humidity_percent: u8,
    /// A one-word summary.
    pub conditions: Conditions,
}

/// A one-word weather summary.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Conditions {
    /// Clear sky.
    Sunny,
    /// Overcast.
    Cloudy,
    /// Rain.
    Rainy,
    /// Snow.
    Snowy,
}

/// A stable, made-up weather report for `city`.
pub fn invent_weather(city: &str) -> Weather {
    // FNV-1a over the lowercased name: stable across runs and platforms.
    let hash = city
        .to_lowercase()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    let conditions = match hash % 4 {
        0 => Conditions::Sunny,
        1 => Conditions::Cloudy,
        2 => Conditions::Rainy,
        _ => Conditions::Snowy,
    };
    let tenths = i32::try_from((hash >> 8) % 400).unwrap_or(0) - 100; // −10.0 … 29.9 °C
    Weather {
        city: city.to_owned(),
        celsius: f64::from(tenths) / 10.0,
        humidity_percent: u8::try_from((hash >> 20) % 101).unwrap_or(50),
        conditions,
    }
}

#[tool_router(vis = "pub(super)")]
impl DemoServer {
    /// Sends the text back unchanged.
    #[tool(
        description = "Echo the given text back unchanged.",
        annotations(title = "Echo", read_only_hint = true, open_world_hint = false)
    )]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Adds two numbers.
    #[tool(
        description = "Add two numbers and return the sum as text.",
        annotations(title = "Add", read_only_hint = true, open_world_hint = false)
    )]
    async fn add(
        &self,
        Parameters(AddArgs { a, b }): Parameters<AddArgs>,
    ) -> Result<String, String> {
        let sum = a + b;
        if sum.is_finite() {
            Ok(sum.to_string())
        } else {
            Err(format!("the sum of {a} and {b} is not a finite number"))
        }
    }

    /// Runs `steps` steps of `delay_ms`, reporting progress; stops early when cancelled.
    #[tool(
        description = "Run a slow task of `steps` steps, `delay_ms` each. Sends a progress notification per step when the request carries a progress token, and stops early when the request is cancelled (the outcome is logged and shown in demo://status.json).",
        annotations(title = "Long task", read_only_hint = true, open_world_hint = false)
    )]
    async fn long_task(
        &self,
        Parameters(args): Parameters<LongTaskArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        if !(1..=MAX_STEPS).contains(&args.steps) {
            return Err(format!("steps must be between 1 and {MAX_STEPS}"));
        }
        if args.delay_ms > MAX_DELAY_MS {
            return Err(format!("delay_ms must be at most {MAX_DELAY_MS}"));
        }
        let token = ctx.meta.get_progress_token();
        let delay = Duration::from_millis(args.delay_ms);
        for done in 0..args.steps {
            tokio::select! {
                () = ctx.ct.cancelled() => {
                    let outcome = TaskOutcome::cancelled(done, args.steps);
                    self.finish_task(&ctx, &outcome).await;
                    return Err(outcome.message());
                }
                () = tokio::time::sleep(delay) => {}
            }
            if let Some(token) = token.clone() {
                let progress = ProgressNotificationParam::new(token, f64::from(done + 1))
                    .with_total(f64::from(args.steps))
                    .with_message(format!("step {} of {}", done + 1, args.steps));
                // After stdin closes, rmcp stops forwarding notifications and a send waits
                // until the session is torn down: never let that outlive a cancellation.
                tokio::select! {
                    () = ctx.ct.cancelled() => {
                        let outcome = TaskOutcome::cancelled(done + 1, args.steps);
                        self.finish_task(&ctx, &outcome).await;
                        return Err(outcome.message());
                    }
                    // A failed send (client gone) is not this task's problem.
                    _ = ctx.peer.notify_progress(progress) => {}
                }
            }
        }
        let outcome = TaskOutcome::completed(args.steps);
        self.finish_task(&ctx, &outcome).await;
        Ok(outcome.message())
    }

    /// A made-up weather report with structured content.
    #[tool(
        description = "Report (invented, but stable) weather for a city as structured content matching the tool's output schema.",
        annotations(title = "Weather", read_only_hint = true, open_world_hint = false)
    )]
    async fn weather(
        &self,
        Parameters(WeatherArgs { city }): Parameters<WeatherArgs>,
    ) -> Result<Json<Weather>, String> {
        let city = city.trim();
        if city.is_empty() {
            return Err("city must not be empty".into());
        }
        Ok(Json(invent_weather(city)))
    }

    /// A small PNG image.
    #[tool(
        description = "Return a small 8×8 PNG image (a colour gradient) as image content.",
        annotations(title = "Image", read_only_hint = true, open_world_hint = false)
    )]
    async fn image(&self) -> CallToolResult {
        CallToolResult::success(vec![
            ContentBlock::text("an 8×8 colour gradient"),
            ContentBlock::image(DEMO_PNG_BASE64, "image/png"),
        ])
    }
}

/// The tools' router (used by [`DemoServer::new`]).
pub(super) fn router() -> ToolRouter<DemoServer> {
    DemoServer::tool_router()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weather_is_stable_case_insensitive_and_in_range() {
        let oslo = invent_weather("Oslo");
        assert_eq!(oslo, invent_weather("Oslo"));
        let lower = invent_weather("oslo");
        assert_eq!(
            (lower.celsius, lower.conditions),
            (oslo.celsius, oslo.conditions)
        );
        for city in ["Oslo", "Lima", "Perth", "Reykjavík", "x"] {
            let w = invent_weather(city);
            assert!((-10.0..30.0).contains(&w.celsius), "{w:?}");
            assert!(w.humidity_percent <= 100, "{w:?}");
        }
        // Different cities do not all get the same report.
        let reports: std::collections::BTreeSet<String> = ["Oslo", "Lima", "Perth", "Cairo"]
            .iter()
            .map(|c| {
                format!("{:?}", invent_weather(c).conditions)
                    + &invent_weather(c).celsius.to_string()
            })
            .collect();
        assert!(reports.len() > 1);
    }

    #[test]
    fn weather_output_schema_bounds_humidity() {
        let schema = schemars::schema_for!(Weather);
        let value = serde_json::to_value(&schema).unwrap_or_default();
        assert_eq!(value["properties"]["humidity_percent"]["maximum"], 100);
    }
}
