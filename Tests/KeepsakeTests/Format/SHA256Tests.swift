import KeepsakeTesting
import Testing

@testable import Keepsake

@Suite("SHA-256")
struct SHA256Tests {
  @Test(
    "Standard test vectors (FIPS 180-4)",
    arguments: [
      ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
      ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
      (
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
      ),
    ])
  func vectors(message: String, digest: String) {
    #expect(SHA256.hexDigest(of: Array(message.utf8)) == digest)
  }

  @Test("One million 'a'")
  func millionA() {
    var hash = SHA256()
    let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000)
    for _ in 0..<1_000 { hash.update(chunk) }
    let hex = hash.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    #expect(hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test("A message exactly one block long pads into a second block")
  func blockBoundary() {
    #expect(
      SHA256.hexDigest(of: [UInt8](repeating: 0x61, count: 64))
        == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
  }
}
