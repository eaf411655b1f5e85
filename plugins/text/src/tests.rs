use super::*;
use quire_plugin_api::Input;

fn convert(bytes: &[u8]) -> Document {
    let input = Input {
        bytes,
        file_name: "a.txt",
        mime: "text/plain",
    };
    TextConverter
        .convert(&input, &mut Context::new())
        .expect("text always converts")
}

fn texts(doc: &Document) -> Vec<Vec<String>> {
    doc.parts[0]
        .blocks
        .iter()
        .map(|b| match b {
            // A `Lines` run as the runs and breaks it stands for.
            Block::Paragraph(inl) => inl
                .iter()
                .flat_map(|i| match i {
                    Inline::Text { text, .. } => vec![text.clone()],
                    Inline::Lines { text } => {
                        let mut out = Vec::new();
                        for (k, line) in text.split('\n').enumerate() {
                            if k > 0 {
                                out.push("\\n".into());
                            }
                            out.push(line.to_owned());
                        }
                        out
                    }
                    other => panic!("unexpected {other:?}"),
                })
                .collect(),
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[test]
fn blank_lines_split_paragraphs_and_single_breaks_stay() {
    let doc = convert(b"Title\r\n\r\nline one  \nline two\n\n\n\nlast\n");
    assert_eq!(doc.kind, DocumentKind::Flowing);
    assert_eq!(doc.type_label, "Text Document");
    assert_eq!(
        texts(&doc),
        vec![
            vec!["Title".to_string()],
            vec!["line one".into(), "\\n".into(), "line two".into()],
            vec!["last".into()],
        ]
    );
    assert_eq!(doc.metadata.extra["encoding"], "UTF-8");
}

#[test]
fn legacy_and_utf16_encodings_are_decoded() {
    let doc = convert(b"caf\xe9 cr\xe8me br\xfbl\xe9e et g\xe2teau\n");
    assert_eq!(
        texts(&doc),
        vec![vec!["café crème brûlée et gâteau".to_string()]]
    );
    assert_eq!(doc.metadata.extra["encoding"], "windows-1252");

    let mut utf16 = vec![0xFF, 0xFE];
    for unit in "héllo\n\nwörld".encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    let doc = convert(&utf16);
    assert_eq!(
        texts(&doc),
        vec![vec!["héllo".to_string()], vec!["wörld".to_string()]]
    );
    assert_eq!(doc.metadata.extra["encoding"], "UTF-16LE");
}

#[test]
fn empty_whitespace_and_control_characters() {
    assert!(convert(b"").parts[0].blocks.is_empty());
    assert!(convert(b"  \n\t\n \r\n").parts[0].blocks.is_empty());
    let doc = convert(b"a\x00b\x1b[0m\tc\x0cnext page\r old mac\r");
    assert_eq!(
        texts(&doc),
        vec![
            vec!["ab[0m c".to_string()],
            vec!["next page".into(), "\\n".into(), "old mac".into()],
        ]
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut bytes = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..20_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        bytes.push((x >> 16) as u8);
    }
    let _ = convert(&bytes);
    let _ = convert(&[0xFE, 0xFF, 0xD8]);
    let _ = convert(&[0xEF, 0xBB]);
}

#[test]
fn deadline_is_honoured() {
    let input = Input {
        bytes: &b"x\n".repeat(100_000),
        file_name: "a.txt",
        mime: "text/plain",
    };
    let mut ctx =
        Context::new().with_deadline(std::time::Instant::now() - std::time::Duration::from_secs(1));
    let err = TextConverter.convert(&input, &mut ctx).unwrap_err();
    assert_eq!(err.kind(), quire_plugin_api::ErrorKind::Timeout);
}
