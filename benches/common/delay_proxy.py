"""A TCP proxy on loopback that delays every byte by DELAY_MS in each direction (a round
trip of twice that), as a slow link would: bytes keep their order and are not rate
limited. Used by benches/records_remote.sh where tc netem is not available.

    python3 delay_proxy.py LISTEN_PORT TARGET_PORT DELAY_MS
"""
import asyncio
import sys
import time


async def pipe(reader, writer, delay):
    queue = asyncio.Queue()

    async def send():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()

    sender = asyncio.create_task(send())
    try:
        while True:
            data = await reader.read(1 << 16)
            if not data:
                break
            queue.put_nowait((time.monotonic() + delay, data))
    except ConnectionError:
        pass
    queue.put_nowait((time.monotonic() + delay, None))
    try:
        await sender
    except ConnectionError:
        pass


async def main():
    listen, target, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000

    async def handle(cr, cw):
        try:
            sr, sw = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            cw.close()
            return
        await asyncio.gather(pipe(cr, sw, delay), pipe(sr, cw, delay))

    server = await asyncio.start_server(handle, "127.0.0.1", listen, backlog=1024)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
