//! `tools.cost`: the tokens each of a server's tool definitions adds to an agent's context
//! (see `mcp::cost` for what is counted and with which tokenizer), and what `mcpdeck serve`'s
//! one tool costs instead.

use crate::mcp::connection::ErrorClass;
use std::fmt::Write as _;

use super::{OpContext, tools};
use crate::mcp::api::OpResult;
use crate::mcp::cost::catalog_cost;
use crate::mcp::engine::outcome::{Failure, Success};

/// `tools.cost`.
pub(crate) async fn tool_costs(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    let catalog = tools(ctx).await?;
    let cost = catalog_cost(catalog.tools()).map_err(|e| Failure::new(ErrorClass::Tokenizer, e))?;
    let mut text = format!(
        "{} on {}: {} tokens ({}; each definition as compact JSON with name, description and \
         inputSchema)\n",
        super::counted(cost.tools.len(), "tool", "tools"),
        ctx.slot.name,
        thousands(cost.total),
        cost.tokenizer
    );
    if !cost.tools.is_empty() {
        text.push_str(" tokens  tool\n");
    }
    for tool in &cost.tools {
        let _ = writeln!(text, "{:>7}  {}", thousands(tool.tokens), tool.name);
    }
    let _ = writeln!(
        text,
        "through `mcpdeck serve` an agent sees one tool, `mcp`: {} tokens, however many servers \
         stand behind it",
        thousands(cost.proxy_tool)
    );
    let (text, spills) = super::bounded(ctx, "tools.cost", &text, 0)?;
    Ok(Success {
        result: OpResult::Costs(cost),
        text,
        spills,
    })
}

/// `12345` as `12,345`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_are_grouped() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(1_234_567), "1,234,567");
    }
}
