//! Describing a spill that is not text: an image says its type, size and (PNG, JPEG) pixel
//! dimensions; other binary data says its size. The pager shows the description instead of
//! bytes that would only be replacement characters. Pure functions over the file's first bytes.

/// A description of `head` (the file's first bytes; `size` its length) when it is not text.
pub fn describe(head: &[u8], size: u64) -> Option<String> {
    if let Some((w, h)) = png_size(head) {
        return Some(format!("image/png, {size} bytes, {w}×{h} pixels"));
    }
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some(match jpeg_size(head) {
            Some((w, h)) => format!("image/jpeg, {size} bytes, {w}×{h} pixels"),
            None => format!("image/jpeg, {size} bytes"),
        });
    }
    for (magic, mime) in [
        (&b"GIF8"[..], "image/gif"),
        (&b"RIFF"[..], "image/webp"),
        (&b"%PDF"[..], "application/pdf"),
    ] {
        if head.starts_with(magic) {
            return Some(format!("{mime}, {size} bytes"));
        }
    }
    // Text may be cut mid-character at the window's end; a NUL or invalid UTF-8 well before
    // the end means binary.
    let probe = &head[..head.len().min(4096)];
    let valid = match std::str::from_utf8(probe) {
        Ok(_) => true,
        Err(e) => e.valid_up_to() + 4 >= probe.len() && e.error_len().is_none(),
    };
    (probe.contains(&0) || !valid).then(|| format!("binary data, {size} bytes"))
}

/// A PNG's (width, height) from its IHDR chunk.
fn png_size(head: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n'];
    if !head.starts_with(&SIGNATURE) || head.get(12..16)? != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(head.get(16..20)?.try_into().ok()?);
    let h = u32::from_be_bytes(head.get(20..24)?.try_into().ok()?);
    Some((w, h))
}

/// A JPEG's (width, height) from its first start-of-frame segment.
fn jpeg_size(head: &[u8]) -> Option<(u16, u16)> {
    let mut at = 2;
    while at + 4 <= head.len() {
        if head[at] != 0xFF {
            return None;
        }
        let marker = head[at + 1];
        let len = usize::from(u16::from_be_bytes([head[at + 2], head[at + 3]]));
        // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC).
        if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            let h = u16::from_be_bytes([*head.get(at + 5)?, *head.get(at + 6)?]);
            let w = u16::from_be_bytes([*head.get(at + 7)?, *head.get(at + 8)?]);
            return Some((w, h));
        }
        at += 2 + len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn images_say_their_type_size_and_dimensions() {
        let mut png = vec![
            0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n', 0, 0, 0, 13,
        ];
        png.extend_from_slice(b"IHDR");
        png.extend_from_slice(&8u32.to_be_bytes());
        png.extend_from_slice(&6u32.to_be_bytes());
        png.extend_from_slice(&[8, 2, 0, 0, 0]);
        assert_eq!(
            describe(&png, 165).as_deref(),
            Some("image/png, 165 bytes, 8×6 pixels")
        );
        // SOI, an APP0 segment of 16 bytes, then SOF0 with height 480 and width 640.
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16];
        jpeg.extend_from_slice(&[0; 14]);
        jpeg.extend_from_slice(&[0xFF, 0xC0, 0, 17, 8, 0x01, 0xE0, 0x02, 0x80, 3]);
        assert_eq!(
            describe(&jpeg, 2048).as_deref(),
            Some("image/jpeg, 2048 bytes, 640×480 pixels")
        );
    }

    #[test]
    fn text_is_not_described_and_other_binary_is() {
        assert_eq!(describe("plain text, héllo\n".as_bytes(), 18), None);
        // A multi-byte character cut at the window's end is still text.
        assert_eq!(describe(&"é".as_bytes()[..1], 1), None);
        assert_eq!(
            describe(&[1, 0, 2, 3], 4).as_deref(),
            Some("binary data, 4 bytes")
        );
    }
}
