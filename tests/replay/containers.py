# Large containers built by the standard library (json, re, hashlib, collections): their
# buffers grow through realloc, which glibc turns into mremap(MREMAP_MAYMOVE) for big blocks.
import collections
import hashlib
import json
import re

words = ["w%05d-%s" % (i, "x" * (i % 17)) for i in range(50000)]
counts = collections.Counter(w[-3:] for w in words)
text = json.dumps({"words": words, "counts": counts})
back = json.loads(text)
digits = re.findall(r"\d+", text)
digest = hashlib.sha256(text.encode()).hexdigest()
big = bytearray()
for w in words:
    big += w.encode() * 3
print(len(back["words"]), len(digits), digest[:16], len(big), counts.most_common(2))
