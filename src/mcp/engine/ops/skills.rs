//! The operator's skills (the `io.modelcontextprotocol/skills` extension): `skills.list`
//! (`skills/list`, every page) and `skills.get` (one skill's entry, by name from the listing or
//! by URI through `skills/get`, then its `SKILL.md` and only the files the operator named, each
//! read with `resources/read` and verified against the entry before anything of it is shown).
//! Nothing is read on connecting or listing; a file that fails verification stops the
//! operation, so no later file is fetched.

use std::fmt::Write as _;

use base64::Engine as _;
use rmcp::model::{
    ClientRequest, GetSkillRequest, GetSkillRequestParams, ListSkillsRequest, ResourceContents,
    ServerResult, Skill,
};
use serde_json::Value;

use super::catalogs::list_pages;
use super::{OpContext, bounded, page_failure, undeclared, unexpected};
use crate::mcp::api::OpResult;
use crate::mcp::catalog::CatalogKind;
use crate::mcp::catalog::skills::{
    self, SKILL_MD, SkillFileRead, SkillList, SkillRead, SkillSummary,
};
use crate::mcp::connection::ErrorClass;
use crate::mcp::engine::outcome::{Failure, Success};
use crate::mcp::sanitize::{sanitize, sanitize_capped};

/// Whether the server declared the skills extension.
async fn declared(ctx: &OpContext<'_>) -> bool {
    let conn = ctx.live.conn.read().await;
    conn.identity().capabilities.supports_skills()
}

/// A page of `skills/list`: typed when rmcp decoded it so, read from JSON otherwise.
fn skills_page(result: ServerResult) -> Option<(Vec<Skill>, Option<String>)> {
    if let ServerResult::ListSkillsResult(r) = result {
        return Some((r.skills, r.next_cursor));
    }
    let value = serde_json::to_value(&result).ok()?;
    let skills = serde_json::from_value(value.get("skills")?.clone()).ok()?;
    let cursor = value
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Some((skills, cursor))
}

/// Every skill, page by page within the bounds.
async fn all_skills(ctx: &OpContext<'_>) -> Result<Vec<Skill>, Failure> {
    let conn = ctx.live.conn.read().await;
    list_pages(
        ctx,
        &conn,
        CatalogKind::Skills,
        |params| {
            ClientRequest::ListSkillsRequest(ListSkillsRequest {
                params,
                ..Default::default()
            })
        },
        skills_page,
    )
    .await
    .map_err(page_failure)
}

/// `skills.list`: the entries only; no skill file is read.
pub(crate) async fn list_skills(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    if !declared(ctx).await {
        let empty = OpResult::Skills(SkillList {
            skills: Vec::new(),
            declared: false,
        });
        return Ok(undeclared(ctx, "skills", empty));
    }
    let skills: Vec<SkillSummary> = all_skills(ctx)
        .await?
        .iter()
        .map(skills::summarize_skill)
        .collect();
    let mut text = super::heading(
        skills.len(),
        ("skill", "skills"),
        &format!("on {}", ctx.slot.name),
    );
    for s in &skills {
        let _ = write!(text, "- {} {}", s.name, s.uri);
        match &s.files {
            Some(files) => {
                let size: u64 = files.iter().map(|f| f.size).sum();
                let _ = write!(text, " ({}, {size} bytes)", counted_files(files.len()));
            }
            None => text.push_str(" (dynamic: no digests to verify)"),
        }
        if !s.description.is_empty() {
            let _ = write!(text, ": {}", s.description);
        }
        text.push('\n');
    }
    let (text, spills) = bounded(ctx, "skills.list", &text, 0)?;
    Ok(Success {
        result: OpResult::Skills(SkillList {
            skills,
            declared: true,
        }),
        text,
        spills,
    })
}

fn counted_files(n: usize) -> String {
    if n == 1 {
        "1 file".to_owned()
    } else {
        format!("{n} files")
    }
}

/// The entry `wanted` names: `skills/get` for a URI, the listing's entry for a name.
async fn entry(ctx: &OpContext<'_>, wanted: &str) -> Result<Skill, Failure> {
    if wanted.contains("://") {
        let request = ClientRequest::GetSkillRequest(GetSkillRequest::new(
            GetSkillRequestParams::new(wanted),
        ));
        let conn = ctx.live.conn.read().await;
        let result = ctx.request(&conn, request).await?;
        drop(conn);
        return match result {
            ServerResult::GetSkillResult(r) => Ok(r.skill),
            other => serde_json::to_value(&other)
                .ok()
                .and_then(|v| serde_json::from_value(v.get("skill")?.clone()).ok())
                .ok_or_else(|| unexpected("skills/get")),
        };
    }
    all_skills(ctx)
        .await?
        .into_iter()
        .find(|s| skills::names_skill(s, wanted))
        .ok_or_else(|| {
            Failure::new(
                ErrorClass::InvalidRequest,
                format!(
                    "{} lists no skill named {} (`mcpdeck skills {}` lists them)",
                    sanitize_capped(&ctx.slot.name, 128),
                    sanitize_capped(wanted, 128),
                    sanitize_capped(&ctx.slot.name, 128)
                ),
            )
        })
}

/// The bytes `resources/read` returned for `uri` (text as UTF-8, a blob decoded).
async fn read_bytes(ctx: &OpContext<'_>, uri: &str) -> Result<Vec<u8>, Failure> {
    let contents = super::resources::read_contents(ctx, uri).await?;
    let content = contents
        .iter()
        .find(|c| matches!(c, ResourceContents::TextResourceContents { uri: u, .. } | ResourceContents::BlobResourceContents { uri: u, .. } if u == uri))
        .or_else(|| contents.first())
        .ok_or_else(|| refused(uri, "the server returned no content"))?;
    match content {
        ResourceContents::TextResourceContents { text, .. } => Ok(text.as_bytes().to_vec()),
        ResourceContents::BlobResourceContents { blob, .. } => {
            base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|_| refused(uri, "its blob is not base64"))
        }
        _ => Err(refused(
            uri,
            "its content is of a kind mcpdeck does not read",
        )),
    }
}

fn refused(uri: &str, why: &str) -> Failure {
    Failure::new(
        ErrorClass::Protocol,
        format!(
            "refused {}: {why}; none of its content is used",
            sanitize_capped(uri, 512)
        ),
    )
}

/// Reads one file of `skill` and verifies it against the entry.
async fn read_verified(
    ctx: &OpContext<'_>,
    skill: &Skill,
    uri: &str,
) -> Result<SkillFileRead, Failure> {
    let bytes = read_bytes(ctx, uri).await?;
    skills::verify(skill, uri, &bytes).map_err(|m| refused(uri, &m.to_string()))?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(SkillFileRead {
        path: sanitize_capped(&skills::path_in_skill(&skill.uri, uri), 256),
        uri: sanitize_capped(uri, 512),
        text: sanitize(&text).into_owned(),
    })
}

/// The URI of each file the operator named, all resolved before anything is read.
fn wanted_files(skill: &Skill, wanted: &[String]) -> Result<Vec<String>, Failure> {
    wanted
        .iter()
        .map(|w| {
            skills::file_uri(skill, w).ok_or_else(|| {
                Failure::new(
                    ErrorClass::InvalidRequest,
                    format!(
                        "skill {} lists no file {}",
                        sanitize_capped(&skill.frontmatter.name, 128),
                        sanitize_capped(w, 256)
                    ),
                )
            })
        })
        .filter(|uri| uri.as_ref().map_or(true, |u| *u != skill.uri))
        .collect()
}

/// `skills.get`: the entry, its verified `SKILL.md`, then each named file, verified.
pub(crate) async fn get_skill(
    ctx: &OpContext<'_>,
    wanted: &str,
    files: &[String],
) -> Result<Success, Failure> {
    if !declared(ctx).await {
        return Err(Failure::new(
            ErrorClass::NotSupported,
            format!(
                "{} does not offer skills (it did not declare io.modelcontextprotocol/skills; nothing was sent)",
                sanitize_capped(&ctx.slot.name, 128)
            ),
        ));
    }
    let skill = entry(ctx, wanted).await?;
    let others = wanted_files(&skill, files)?;
    let mut read = vec![read_verified(ctx, &skill, &skill.uri).await?];
    for uri in &others {
        read.push(read_verified(ctx, &skill, uri).await?);
    }
    let summary = skills::summarize_skill(&skill);
    let text = skill_text(&summary, &read);
    let (text, spills) = bounded(ctx, "skills.get", &text, 0)?;
    Ok(Success {
        result: OpResult::Skill(SkillRead {
            verified: summary.files.is_some(),
            skill: summary,
            files: read,
        }),
        text,
        spills,
    })
}

fn skill_text(summary: &SkillSummary, read: &[SkillFileRead]) -> String {
    let mut text = format!("skill {} ({})", summary.name, summary.uri);
    if !summary.description.is_empty() {
        let _ = write!(text, ": {}", summary.description);
    }
    text.push('\n');
    match &summary.files {
        Some(_) => {
            let _ = writeln!(
                text,
                "{} read, each matching the listing's size, SHA-256 digest and front matter.",
                counted_files(read.len())
            );
        }
        None => text.push_str("dynamic skill: no sizes or digests to verify against.\n"),
    }
    for file in read {
        let _ = write!(text, "\n--- {} ---\n{}", file.path, file.text);
        if !file.text.ends_with('\n') {
            text.push('\n');
        }
    }
    let unread: Vec<_> = summary
        .files
        .iter()
        .flatten()
        .filter(|f| f.path != SKILL_MD && !read.iter().any(|r| r.uri == f.uri))
        .collect();
    if !unread.is_empty() {
        text.push_str("\nNot read (`--file PATH` reads one):\n");
        for f in unread {
            let _ = writeln!(text, "- {} ({} bytes)", f.path, f.size);
        }
    }
    text
}
