//! Tests of `mcp/line_reader.rs`.

use super::*;

/// What one read found: the kind, the buffer's bytes, and (for a too-long line) the bytes that
/// `skip_rest` discarded.
#[derive(Debug, PartialEq, Eq)]
struct Read {
    kind: Line,
    bytes: Vec<u8>,
    skipped: Vec<u8>,
}

fn complete(bytes: &[u8]) -> Read {
    Read {
        kind: Line::Complete,
        bytes: bytes.to_vec(),
        skipped: Vec::new(),
    }
}

fn too_long(bytes: &[u8], skipped: &[u8]) -> Read {
    Read {
        kind: Line::TooLong,
        bytes: bytes.to_vec(),
        skipped: skipped.to_vec(),
    }
}

/// Reads `input` to its end, skipping the rest of every too-long line.
async fn read_all(input: &[u8], limit: usize, chunk: usize) -> Vec<Read> {
    let mut reader = LineReader::new(input, limit, chunk);
    let mut line = Vec::new();
    let mut out = Vec::new();
    while let Some(kind) = reader.read_line(&mut line).await.expect("reads") {
        let mut skipped = Vec::new();
        if kind == Line::TooLong {
            reader
                .skip_rest(|piece| skipped.extend_from_slice(piece))
                .await
                .expect("skips");
        }
        out.push(Read {
            kind,
            bytes: line.clone(),
            skipped,
        });
    }
    out
}

/// Chunk sizes that put the limit and the newline at every position within a read.
const CHUNKS: [usize; 5] = [1, 2, 3, 7, 4096];

#[tokio::test]
async fn a_line_one_byte_over_the_limit_is_too_long_and_reading_goes_on() {
    let input = b"12345678\n123456789\n1234567\r\n12345678\r\nnext\n";
    for chunk in CHUNKS {
        assert_eq!(
            read_all(input, 8, chunk).await,
            [
                complete(b"12345678"),
                too_long(b"12345678", b"9"),
                // The `\r` counts towards the limit, and is removed from a whole line.
                complete(b"1234567"),
                too_long(b"12345678", b"\r"),
                complete(b"next"),
            ],
            "chunk {chunk}"
        );
    }
}

#[tokio::test]
async fn a_huge_line_is_never_buffered_and_the_good_line_after_it_is_whole() {
    let huge = vec![b'x'; 1024 * 1024];
    let mut input = huge.clone();
    input.extend_from_slice(b"\n{\"ok\":1}\n\n");
    for chunk in [7, 4096, 64 * 1024] {
        let mut reader = LineReader::new(input.as_slice(), 16, chunk);
        let mut line = Vec::new();
        let kind = reader.read_line(&mut line).await.expect("reads");
        assert_eq!(kind, Some(Line::TooLong));
        // Only the limit was taken; the rest is still in the stream for `skip_rest`.
        assert_eq!(line, huge[..16]);
        assert!(line.capacity() <= 16, "{} bytes held", line.capacity());
        let mut skipped = 0;
        reader
            .skip_rest(|piece| {
                assert!(piece.iter().all(|&b| b == b'x'));
                skipped += piece.len();
            })
            .await
            .expect("skips");
        assert_eq!(skipped, huge.len() - 16);
        let kind = reader.read_line(&mut line).await.expect("reads");
        assert_eq!(
            (kind, line.as_slice()),
            (Some(Line::Complete), &b"{\"ok\":1}"[..])
        );
        // A blank line is a whole (empty) line; then the input ends.
        let kind = reader.read_line(&mut line).await.expect("reads");
        assert_eq!((kind, line.as_slice()), (Some(Line::Complete), &b""[..]));
        assert_eq!(reader.read_line(&mut line).await.expect("reads"), None);
    }
}

#[tokio::test]
async fn eof_mid_line_ends_the_last_line_whole_or_too_long() {
    for chunk in CHUNKS {
        assert_eq!(
            read_all(b"first\nlast\r", 8, chunk).await,
            [complete(b"first"), complete(b"last")],
            "chunk {chunk}"
        );
        assert_eq!(
            read_all(b"first\n0123456789ab", 8, chunk).await,
            [complete(b"first"), too_long(b"01234567", b"89ab")],
            "chunk {chunk}"
        );
        assert_eq!(read_all(b"", 8, chunk).await, []);
    }
}
