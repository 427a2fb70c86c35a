//! Converting one `rmcp::model` content block into model-visible text: text stays
//! text; image, audio and binary embedded resources become a one-line media entry whose bytes
//! are decoded from base64 straight into a spill; a resource link shows its name and URI origin
//! only; an unknown block shows a bounded metadata line, never the raw object; a block the
//! server annotated is preceded by one `[annotations: …]` line. Every server string is
//! sanitised and redacted here. Raw URIs and host paths never reach the output.

use std::borrow::Cow;
use std::io::{self, Write as _};

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use rmcp::model::{ContentBlock, ResourceContents};
use serde::Serialize;

use super::bounded::BoundedText;
use super::redact::Redactor;
use super::spill::{SpillDir, SpillEntry};
use crate::mcp::sanitize::{sanitize, sanitize_capped};

/// Longest MIME type or name shown in a metadata line, in bytes.
const META_BYTES: usize = 128;

/// A binary resource this small is also shown, byte by byte in hex, after its spill's name:
/// the spill goes when the process exits, and a few bytes read whole where they are shown.
pub(crate) const SHOWN_BLOB_BYTES: usize = 64;

/// Standard base64, padded or not (servers differ).
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Who produced a result and where its spills go.
#[derive(Debug, Clone, Copy)]
pub struct ShapeContext<'a> {
    /// The configured server's name.
    pub server: &'a str,
    /// The normalized operation, recorded on spills (`tools.call x`).
    pub origin: &'a str,
    /// This process's spill directory.
    pub spills: &'a SpillDir,
    /// Resolved secrets to redact from everything the server sent.
    pub redactor: &'a Redactor,
    /// Keep the server's characters in data (text, structured content, spills): only secrets
    /// are redacted, and the face that prints it escapes or sanitises (the CLI). When false,
    /// data is sanitised here too (the console and serve mode).
    pub keep_data: bool,
}

impl ShapeContext<'_> {
    /// Redacts then sanitises server text (redacting first, so a secret that contains a
    /// character the sanitiser rewrites is still found). Borrowed when nothing changed, so an
    /// 8 MiB clean text is never copied here.
    pub fn clean<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.keep_data {
            return self.redactor.redact(text);
        }
        match self.redactor.redact(text) {
            Cow::Borrowed(text) if is_plain_ascii(text) => Cow::Borrowed(text),
            Cow::Borrowed(text) => sanitize(text),
            Cow::Owned(text) => Cow::Owned(sanitize(&text).into_owned()),
        }
    }
}

/// Whether `text` is printable ASCII and newlines only, which the sanitiser leaves unchanged.
/// A byte scan the compiler vectorises: large plain results skip the per-character pass.
fn is_plain_ascii(text: &str) -> bool {
    text.bytes()
        .all(|b| b == b'\n' || (0x20..0x7f).contains(&b))
}

impl ShapeContext<'_> {
    /// Sanitises, redacts and caps server metadata text (names, MIME types).
    pub fn meta(&self, text: &str) -> String {
        sanitize_capped(&self.redactor.redact(text), META_BYTES)
    }
}

/// What kind of media a spilled block held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MediaKind {
    /// An image block.
    Image,
    /// An audio block.
    Audio,
    /// An embedded resource with binary (or non-text) content.
    Resource,
}

impl MediaKind {
    fn label(self) -> &'static str {
        match self {
            Self::Image => "image",
            Self::Audio => "audio",
            Self::Resource => "embedded resource",
        }
    }
}

/// Whether content of this MIME type is shown as text rather than spilled.
pub(crate) fn is_textual(mime: Option<&str>) -> bool {
    let Some(mime) = mime else {
        return true;
    };
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence.is_empty()
        || essence.starts_with("text/")
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
        || matches!(
            essence.as_str(),
            "application/json"
                | "application/xml"
                | "application/yaml"
                | "application/x-yaml"
                | "application/toml"
                | "application/javascript"
                | "application/x-sh"
                | "application/sql"
                | "application/graphql"
        )
}

/// The origin of a URI: `scheme://host[:port]`, without credentials, path, query or fragment.
pub(crate) fn uri_origin(uri: &str) -> String {
    let Some((scheme, rest)) = uri.split_once(':') else {
        return "(no scheme)".to_owned();
    };
    let scheme_ok = !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !scheme_ok {
        return "(invalid uri)".to_owned();
    }
    let scheme = scheme.to_ascii_lowercase();
    let Some(after) = rest.strip_prefix("//") else {
        return format!("{scheme}:");
    };
    let authority = after.split(['/', '?', '#', '\\']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
    sanitize_capped(&format!("{scheme}://{host_port}"), META_BYTES)
}

/// Decodes base64 `data` into a new spill, streaming; `None` when the data is not base64 (the
/// partial spill is removed).
fn spill_base64(ctx: &ShapeContext<'_>, data: &str, mime: &str) -> io::Result<Option<SpillEntry>> {
    let mut spill = ctx.spills.create_spill(mime, ctx.origin)?;
    let mut reader = base64::read::DecoderReader::new(data.trim().as_bytes(), &BASE64);
    match io::copy(&mut reader, &mut spill) {
        Ok(_) => Ok(Some(spill.finish()?)),
        Err(e) if e.kind() == io::ErrorKind::InvalidData => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes raw text into a new spill.
fn spill_text(ctx: &ShapeContext<'_>, text: &str, mime: &str) -> io::Result<SpillEntry> {
    let mut spill = ctx.spills.create_spill(mime, ctx.origin)?;
    spill.write_all(text.as_bytes())?;
    spill.finish()
}

fn media_line(kind: MediaKind, mime: &str, spilled: Option<&SpillEntry>) -> String {
    match spilled {
        Some(entry) => format!(
            "[{} {mime}, {} bytes, saved to spill file {}]",
            kind.label(),
            entry.size,
            entry.basename
        ),
        None => format!("[{} {mime}: invalid base64 data, not saved]", kind.label()),
    }
}

/// Starts a new line in `out` if it is mid-line.
pub(crate) fn line_break(out: &mut BoundedText<'_>) -> io::Result<()> {
    if out.at_line_start() {
        Ok(())
    } else {
        out.push("\n")
    }
}

/// Converts one block into `out`, recording any spill in `spills`.
pub(crate) fn convert_block(
    ctx: &ShapeContext<'_>,
    block: &ContentBlock,
    out: &mut BoundedText<'_>,
    spills: &mut Vec<SpillEntry>,
) -> io::Result<()> {
    line_break(out)?;
    if let Some(annotations) = super::annotations::of_block(block) {
        out.push(
            &ctx.redactor
                .redact(&super::annotations::block_line(&annotations)),
        )?;
    }
    match block {
        ContentBlock::Text(text) => out.push(&ctx.clean(&text.text)),
        ContentBlock::Image(image) => {
            let mime = ctx.meta(&image.mime_type);
            let entry = spill_base64(ctx, &image.data, &image.mime_type)?;
            out.push(&media_line(MediaKind::Image, &mime, entry.as_ref()))?;
            spills.extend(entry);
            Ok(())
        }
        ContentBlock::Audio(audio) => {
            let mime = ctx.meta(&audio.mime_type);
            let entry = spill_base64(ctx, &audio.data, &audio.mime_type)?;
            out.push(&media_line(MediaKind::Audio, &mime, entry.as_ref()))?;
            spills.extend(entry);
            Ok(())
        }
        ContentBlock::Resource(embedded) => convert_resource(ctx, &embedded.resource, out, spills),
        ContentBlock::ResourceLink(link) => out.push(&format!(
            "[resource link: {} ({})]",
            ctx.meta(&link.name),
            uri_origin(&link.uri)
        )),
        #[allow(unreachable_patterns)]
        other => out.push(&unknown_line(other)),
    }
}

/// Converts resource contents (embedded in a result, or read directly) into `out`.
pub(crate) fn convert_resource(
    ctx: &ShapeContext<'_>,
    contents: &ResourceContents,
    out: &mut BoundedText<'_>,
    spills: &mut Vec<SpillEntry>,
) -> io::Result<()> {
    match contents {
        ResourceContents::TextResourceContents {
            mime_type, text, ..
        } => {
            if is_textual(mime_type.as_deref()) {
                out.push(&ctx.clean(text))
            } else {
                let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
                let entry = spill_text(ctx, text, mime)?;
                out.push(&media_line(
                    MediaKind::Resource,
                    &ctx.meta(mime),
                    Some(&entry),
                ))?;
                spills.push(entry);
                Ok(())
            }
        }
        ResourceContents::BlobResourceContents {
            mime_type, blob, ..
        } => {
            let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
            let entry = spill_base64(ctx, blob, mime)?;
            let mut line = media_line(MediaKind::Resource, &ctx.meta(mime), entry.as_ref());
            if let Some(hex) = entry.as_ref().and_then(|e| small_blob_hex(blob, e.size)) {
                line.insert_str(line.len() - 1, &format!("; bytes: {hex}"));
            }
            out.push(&line)?;
            spills.extend(entry);
            Ok(())
        }
        #[allow(unreachable_patterns)]
        _ => out.push("[unsupported resource contents]"),
    }
}

/// The bytes of a blob of at most [`SHOWN_BLOB_BYTES`] (`size`, as spilled) in hex
/// (`00 01 02`); `None` for a larger one.
fn small_blob_hex(blob: &str, size: u64) -> Option<String> {
    use base64::Engine as _;
    if size > SHOWN_BLOB_BYTES as u64 {
        return None;
    }
    let bytes = BASE64.decode(blob.trim()).ok()?;
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Some(hex.join(" "))
}

/// A bounded line for a block this version does not know: its `type` tag only.
fn unknown_line<T: Serialize>(block: &T) -> String {
    let tag = serde_json::to_value(block)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned());
    format!(
        "[unsupported content block of type `{}`]",
        sanitize_capped(&tag, 64)
    )
}

/// The size a block contributes to a response, in bytes, for response-size bounds.
pub(crate) fn block_size(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text(t) => t.text.len(),
        ContentBlock::Image(i) => i.data.len(),
        ContentBlock::Audio(a) => a.data.len(),
        ContentBlock::Resource(r) => resource_size(&r.resource),
        ContentBlock::ResourceLink(l) => l.uri.len() + l.name.len(),
        #[allow(unreachable_patterns)]
        _ => 0,
    }
}

/// The size of resource contents, in bytes (base64 characters for blobs).
pub(crate) fn resource_size(contents: &ResourceContents) -> usize {
    match contents {
        ResourceContents::TextResourceContents { text, .. } => text.len(),
        ResourceContents::BlobResourceContents { blob, .. } => blob.len(),
        #[allow(unreachable_patterns)]
        _ => 0,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn origins_drop_credentials_paths_and_queries() {
        assert_eq!(
            uri_origin("https://user:pw@example.com:8443/a/b?token=x#f"),
            "https://example.com:8443"
        );
        assert_eq!(uri_origin("file:///home/me/.ssh/id_rsa"), "file://");
        assert_eq!(uri_origin("mem://doc/1"), "mem://doc");
        assert_eq!(uri_origin("urn:isbn:123"), "urn:");
        assert_eq!(uri_origin("no scheme here"), "(no scheme)");
        assert_eq!(uri_origin("ht tp://x"), "(invalid uri)");
        assert_eq!(uri_origin("HTTP://h\u{1b}[2J/x"), "http://h␛[2J");
    }

    #[test]
    fn the_ascii_fast_path_agrees_with_the_sanitiser() {
        for text in [
            "plain text\nline",
            "tab\there",
            "esc\u{1b}[2J",
            "cr\r\n",
            "del\u{7f}",
            "é",
        ] {
            let fast = is_plain_ascii(text);
            assert!(!fast || crate::mcp::sanitize::is_clean(text), "{text:?}");
        }
        assert!(is_plain_ascii("plain text\nline"));
        assert!(!is_plain_ascii("tab\there"));
    }

    #[test]
    fn a_small_blob_is_shown_in_hex_and_a_larger_one_is_not() {
        assert_eq!(small_blob_hex("AAEC", 3).as_deref(), Some("00 01 02"));
        assert_eq!(small_blob_hex("AAEC", SHOWN_BLOB_BYTES as u64 + 1), None);
    }

    #[test]
    fn textual_mimes() {
        for m in [
            None,
            Some("text/markdown"),
            Some("application/json; charset=utf-8"),
            Some("application/ld+json"),
            Some("image/svg+xml"),
        ] {
            assert!(is_textual(m), "{m:?}");
        }
        for m in [
            Some("image/png"),
            Some("application/octet-stream"),
            Some("application/pdf"),
        ] {
            assert!(!is_textual(m), "{m:?}");
        }
    }
}
