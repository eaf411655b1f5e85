"""MCP check with the official Python SDK (`mcp` from PyPI): over stdio (`quire mcp`) or
Streamable HTTP (`/mcp` on `quire serve`): initialize, list tools, convert a PDF (Markdown and
chunks), convert one by path (stdio), and read the error for a bad file. Exits non-zero with a
message on the first failed expectation.

Usage: client.py stdio QUIRE_BINARY PDF_FILE
       client.py http URL PDF_FILE
"""

import asyncio
import base64
import json
import os
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def fail(message):
    print(f"check-mcp: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def exercise(session, mode, pdf):
    init = await session.initialize()
    if init.server_info is None or not init.capabilities.tools:
        fail(f"{mode}: initialize did not announce tools: {init}")
    tools = {t.name for t in (await session.list_tools()).tools}
    expected = {"convert", "list_formats"}
    if mode == "http":
        expected |= {"create_job", "get_job", "get_job_result"}
    if tools != expected:
        fail(f"{mode}: tools {sorted(tools)}, expected {sorted(expected)}")

    formats = await session.call_tool("list_formats", {})
    listed = json.loads(text_of(formats))
    if "chunks" not in listed["output_formats"] or not any(
        c["id"] == "pdf" and c["ready"] for c in listed["converters"]
    ):
        fail(f"{mode}: list_formats lacks a ready PDF converter or chunks: {listed}")

    with open(pdf, "rb") as f:
        content = base64.b64encode(f.read()).decode()
    md = await session.call_tool(
        "convert", {"content_base64": content, "file_name": os.path.basename(pdf)}
    )
    markdown = text_of(md)
    if md.is_error or "<!-- Page 1 -->" not in markdown or "MCP check document" not in markdown:
        fail(f"{mode}: convert to Markdown gave {markdown[:300]!r}")

    chunks = await session.call_tool(
        "convert",
        {
            "content_base64": content,
            "file_name": "check.pdf",
            "output_format": "chunks",
            "max_tokens": 64,
        },
    )
    out = json.loads(text_of(chunks))
    if chunks.is_error or not out["chunks"] or any(c["token_count"] > 64 for c in out["chunks"]):
        fail(f"{mode}: chunks output wrong: {text_of(chunks)[:300]!r}")
    # Both short pages fit in one chunk, which says so.
    if out["chunks"][0]["pages"] != [1, 2] or out["document"]["kind"] != "paged":
        fail(f"{mode}: chunk pages wrong: {out['chunks'][0]}")

    bad = await session.call_tool(
        "convert",
        {"content_base64": base64.b64encode(b"%PDF-1.7\nnot really a pdf").decode(), "file_name": "bad.pdf"},
    )
    if not bad.is_error or not text_of(bad):
        fail(f"{mode}: a damaged PDF did not give an error: {bad}")
    print(f"check-mcp: {mode}: bad file -> {text_of(bad)!r}")

    wrong = await session.call_tool("convert", {"content_base64": content, "max_tokens": 100})
    if not wrong.is_error or "only with output_format chunks" not in text_of(wrong):
        fail(f"{mode}: a chunk option without chunks was accepted: {wrong}")

    if mode == "stdio":
        by_path = await session.call_tool("convert", {"path": os.path.basename(pdf)})
        if by_path.is_error or "MCP check document" not in text_of(by_path):
            fail(f"stdio: convert by path gave {text_of(by_path)[:300]!r}")
        outside = await session.call_tool("convert", {"path": "/etc/hostname"})
        if not outside.is_error:
            fail("stdio: a path outside the working directory was read")
    else:
        outside = await session.call_tool("convert", {"path": pdf})
        if not outside.is_error or "content_base64" not in text_of(outside):
            fail(f"http: a path was read over HTTP: {text_of(outside)!r}")
        job = json.loads(text_of(await session.call_tool(
            "create_job", {"content_base64": content, "file_name": "job.pdf", "output_format": "json"}
        )))
        for _ in range(300):
            state = json.loads(text_of(await session.call_tool("get_job", {"job_id": job["id"]})))
            if state["status"] in ("completed", "failed"):
                break
            await asyncio.sleep(0.1)
        if state["status"] != "completed":
            fail(f"http: job ended {state}")
        result = json.loads(text_of(await session.call_tool("get_job_result", {"job_id": job["id"]})))
        if result["content"]["type"] != "multi_page_document":
            fail(f"http: job result {result}")
        missing = await session.call_tool("get_job", {"job_id": "00000000-0000-4000-8000-000000000000"})
        if not missing.is_error:
            fail("http: an unknown job was found")
    print(f"check-mcp: {mode}: initialize, {len(tools)} tools, PDF to Markdown and chunks, errors: ok")


async def main():
    mode, target, pdf = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "stdio":
        params = StdioServerParameters(
            command=target, args=["mcp"], cwd=os.path.dirname(os.path.abspath(pdf)),
            env={**os.environ, "LOG_LEVEL": "warn"},
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session, mode, pdf)
    else:
        async with streamable_http_client(target) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session, mode, pdf)


asyncio.run(main())
