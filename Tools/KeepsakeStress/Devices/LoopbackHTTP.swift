import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A minimal HTTP/1.1 client for a Syncthing daemon's REST API on `127.0.0.1`: one request per
/// connection, the body read to the end.
///
/// NB: a socket of its own rather than `URLSession`: the campaign talks to loopback only, and on
/// Linux `URLSession` needs FoundationNetworking and libcurl for what is 40 lines here.
enum LoopbackHTTP {
  /// A response: the status code and the body.
  struct Response {
    var status: Int
    var body: Data

    /// The body as a JSON object, or `nil`.
    var object: [String: Any]? {
      (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
  }

  /// Sends `method path` to `127.0.0.1:port` with the API key, waiting up to `timeout` seconds.
  ///
  /// - Throws: ``DevicesCampaignError`` when the daemon cannot be reached or answers garbage.
  static func request(
    _ method: String, port: Int, path: String, apiKey: String, timeout: Double = 10
  ) throws -> Response {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw DevicesCampaignError("socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      throw DevicesCampaignError(
        "cannot reach 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
    }
    let request =
      "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-API-Key: \(apiKey)\r\n"
      + "Content-Length: 0\r\nConnection: close\r\n\r\n"
    let bytes = Array(request.utf8)
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { throw DevicesCampaignError("sending to 127.0.0.1:\(port) failed") }
      sent += count
    }
    var response = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { break }
      response.append(contentsOf: buffer[..<count])
    }
    return try parse(response, port: port)
  }

  private static func parse(_ response: Data, port: Int) throws -> Response {
    let separator = Data("\r\n\r\n".utf8)
    guard let end = response.range(of: separator) else {
      throw DevicesCampaignError("127.0.0.1:\(port) answered no HTTP response")
    }
    let head = String(decoding: response[..<end.lowerBound], as: UTF8.self)
    let statusLine = head.split(separator: "\r\n").first ?? ""
    let parts = statusLine.split(separator: " ")
    guard parts.count >= 2, let status = Int(parts[1]) else {
      throw DevicesCampaignError("127.0.0.1:\(port) answered \(statusLine)")
    }
    var body = Data(response[end.upperBound...])
    if head.lowercased().contains("transfer-encoding: chunked") { body = unchunk(body) }
    return Response(status: status, body: body)
  }

  /// The body of a chunked response.
  private static func unchunk(_ data: Data) -> Data {
    var result = Data()
    var index = data.startIndex
    while index < data.endIndex {
      guard let lineEnd = data[index...].range(of: Data("\r\n".utf8)) else { break }
      let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self)
      guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0
      else { break }
      let start = lineEnd.upperBound
      let stop = min(data.endIndex, start + size)
      result.append(data[start..<stop])
      index = min(data.endIndex, stop + 2)
    }
    return result
  }

  /// A TCP port on `127.0.0.1` that is free now, for a daemon to listen on.
  ///
  /// It may be taken again before the daemon binds it, which a failed set-up then says. The port
  /// is drawn below the system's ephemeral range (Linux's `ip_local_port_range`): a port the
  /// system picks itself is one every outgoing connection on the machine may take in the
  /// meantime, and a busy machine makes many.
  static func freePort() throws -> Int {
    let ephemeral = ephemeralPortRange()
    let low = 20_000
    if ephemeral.lowerBound > low + 100 {
      var generator = SystemRandomNumberGenerator()
      for _ in 0..<64 {
        let port = Int.random(in: low..<ephemeral.lowerBound, using: &generator)
        if let bound = try bindable(port) { return bound }
      }
    }
    guard let port = try bindable(0) else {
      throw DevicesCampaignError("no free port on 127.0.0.1")
    }
    return port
  }

  /// The port `port` binds to on `127.0.0.1` right now (the system's choice for 0), or nil when
  /// it is taken.
  private static func bindable(_ port: Int) throws -> Int? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw DevicesCampaignError("socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
      }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
  }

  /// The ports the system hands out to outgoing connections; Linux's default where it cannot be
  /// read.
  static func ephemeralPortRange() -> ClosedRange<Int> {
    let text = try? String(
      contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
    let bounds = (text ?? "").split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    guard bounds.count == 2, bounds[0] <= bounds[1] else { return 32_768...60_999 }
    return bounds[0]...bounds[1]
  }
}

/// Why the devices campaign could not run as set up.
public struct DevicesCampaignError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
