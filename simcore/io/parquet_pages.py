"""The uncompressed size of a Parquet column chunk, from its pages' own headers.

A Parquet file's footer declares each column chunk's uncompressed size, but a reader decompresses
every page into the size the page's header declares; a forged footer can declare a few bytes for
pages that expand to gigabytes. :func:`uncompressed_size` walks the page headers (Thrift compact
protocol: ``PageHeader`` field 2 is the uncompressed size, field 3 the compressed size that
follows the header) and adds up what the pages themselves declare, without decompressing any.
"""

from __future__ import annotations

_MAX_DEPTH = 16  # a page header nests 3 deep; deeper is not a page header


class BadPage(ValueError):
    """Bytes that are not a sequence of Parquet page headers."""


def uncompressed_size(data: bytes, start: int, length: int, max_pages: int) -> int:
    """The sum of the uncompressed sizes the page headers in ``data[start:start+length]`` declare;
    more than ``max_pages`` pages (a chunk has fewer pages than values) is refused too."""
    end = start + length
    if start < 0 or length < 0 or end > len(data):
        raise BadPage("a column chunk lies outside the file")
    reader = _Reader(data, start, end)
    total = pages = 0
    while reader.pos < end:
        pages += 1
        if pages > max_pages:
            raise BadPage(f"a column chunk of more than {max_pages} pages")
        fields = reader.struct(0)
        uncompressed, compressed = fields.get(2, -1), fields.get(3, -1)
        if uncompressed < 0 or compressed < 0:
            raise BadPage("a page header without its sizes")
        total += uncompressed
        reader.pos += compressed
    return total


class _Reader:
    """Just enough of the Thrift compact protocol to read a struct's top-level integer fields
    and skip everything else."""

    def __init__(self, data: bytes, pos: int, end: int) -> None:
        self.data, self.pos, self.end = data, pos, end

    def byte(self) -> int:
        if self.pos >= self.end:
            raise BadPage("a page header runs past its column chunk")
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        value = shift = 0
        while True:
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 63:
                raise BadPage("a page header holds an integer longer than 64 bits")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def struct(self, depth: int) -> dict[int, int]:
        """A struct's integer fields by id (other fields are skipped), up to its stop byte."""
        if depth > _MAX_DEPTH:
            raise BadPage("page header nested too deeply")
        fields: dict[int, int] = {}
        field = 0
        while (head := self.byte()) != 0:
            kind, delta = head & 0x0F, head >> 4
            field = field + delta if delta else self.zigzag()
            if kind in (4, 5, 6):  # i16, i32, i64
                fields[field] = self.zigzag()
            else:
                self.skip(kind, depth + 1)
        return fields

    def skip(self, kind: int, depth: int) -> None:
        if kind in (1, 2):  # a boolean field: its value is in the type
            return
        if kind == 3:  # byte
            self.pos += 1
        elif kind in (4, 5, 6):
            self.varint()
        elif kind == 7:  # double
            self.pos += 8
        elif kind == 8:  # binary: its length, then its bytes
            length = self.varint()  # read first: `self.pos += self.varint()` would add to the old position
            self.pos += length
        elif kind in (9, 10):  # list, set
            head = self.byte()
            size = head >> 4 if head >> 4 != 15 else self.varint()
            for _ in range(size):
                self.skip_element(head & 0x0F, depth)
        elif kind == 11:  # map
            size = self.varint()
            if size:
                types = self.byte()
                for _ in range(size):
                    self.skip_element(types >> 4, depth)
                    self.skip_element(types & 0x0F, depth)
        elif kind == 12:
            self.struct(depth)
        else:
            raise BadPage(f"unknown Thrift type {kind} in a page header")
        if self.pos > self.end:
            raise BadPage("a page header runs past its column chunk")

    def skip_element(self, kind: int, depth: int) -> None:
        if kind in (1, 2):  # booleans in a list take a byte each
            self.byte()
        else:
            self.skip(kind, depth)
