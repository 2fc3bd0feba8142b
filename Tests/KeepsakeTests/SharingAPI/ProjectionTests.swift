import Foundation
import Keepsake
import KeepsakeTesting
import Observation
import Synchronization
import Testing

/// Projections, as an app written for swift-sharing uses them (behaviours ported from its
/// suite in our own words).
@Suite("Projections")
struct ProjectionTests {
  struct User: Codable, Equatable, Sendable {
    var name = ""
    var settings = Settings()
  }
  struct Settings: Codable, Equatable, Sendable {
    var theme = "light"
    var fontSize = 12
    /// A computed member: projected through its key path, not a stored offset.
    var themeInCapitals: String {
      get { theme.uppercased() }
      set { theme = newValue.lowercased() }
    }
  }

  @Test("A member projection writes through to its parent, and the parent's changes show in it")
  func memberWritesThrough() {
    @Shared(value: User(name: "Blob")) var user
    let name = $user.name
    name.withLock { $0 += ", Jr." }
    #expect(user.name == "Blob, Jr.")
    $user.name.withLock { $0 += " III" }
    #expect(name.wrappedValue == "Blob, Jr. III")
    let theme = $user.settings.theme
    $user.withLock { $0.settings.theme = "dark" }
    #expect(theme.wrappedValue == "dark")
  }

  @Test("Stored members nested in a value, beside others, and computed members write through")
  func nestedAndComputedMembers() {
    @Shared(value: User(name: "Blob")) var user
    let fontSize = $user.settings.fontSize
    fontSize.withLock { $0 += 2 }
    #expect(user.settings == Settings(theme: "light", fontSize: 14))
    #expect(user.name == "Blob")
    let capitals = $user.settings.themeInCapitals
    capitals.withLock { $0 = "DARK" }
    #expect(user.settings == Settings(theme: "dark", fontSize: 14))
    #expect(capitals.wrappedValue == "DARK")
  }

  @Test("A computed member of a key's own value reads and writes through, also after a rebinding")
  func computedMemberOfKey() {
    @Shared(value: Settings(theme: "light")) var settings
    let capitals = $settings.themeInCapitals
    #expect(capitals.wrappedValue == "LIGHT")
    capitals.withLock { $0 = "DARK" }
    #expect(settings == Settings(theme: "dark", fontSize: 12))
    $settings.themeInCapitals.withLock { $0 += "ER" }
    #expect(settings.theme == "darker")
    let other = Shared(value: Settings(theme: "blue"))
    $settings = other
    #expect($settings.themeInCapitals.wrappedValue == "BLUE")
    $settings.themeInCapitals.withLock { $0 = "RED" }
    #expect(other.wrappedValue.theme == "red")
    #expect(capitals.wrappedValue == "DARKER", "made before the rebinding, it keeps its value")
  }

  @Test("A change through a projection that throws leaves the value as the body left it")
  func throwingChange() {
    struct Refused: Error {}
    @Shared(value: User(name: "Blob")) var user
    #expect(throws: Refused.self) {
      try $user.settings.fontSize.withLock { size in
        size = 20
        throw Refused()
      }
    }
    #expect(user.settings.fontSize == 20)
    #expect($user.name.withLock { $0.count } == 4)
  }

  @Test("A projection of a file key is saved by the parent's key")
  func projectionSavedByParent() async throws {
    let url = URL(fileURLWithPath: "/app/user.json")
    @Shared(.fileStorage(url)) var user = User()
    let theme = $user.settings.theme
    theme.withLock { $0 = "dark" }
    try await theme.save()
    let disk = try #require($user.storageContext.fileSystem as? InMemoryFileSystem)
    let stored = try JSONDecoder().decode(User.self, from: #require(try disk.contents(of: url)))
    #expect(stored.settings.theme == "dark")
    #expect(theme.keyID == $user.keyID)
    let newName = try await $user.name.update { name -> String in
      name = "Ada"
      return name
    }
    #expect(newName == "Ada")
    #expect(
      try JSONDecoder().decode(User.self, from: #require(try disk.contents(of: url))).name == "Ada")
  }

  @Test("Observers of a projection are told of a change through the parent, and back")
  func observation() {
    @Shared(value: User()) var user
    let theme = $user.settings.theme
    let told = Mutex(0)
    withObservationTracking {
      _ = theme.wrappedValue
    } onChange: {
      told.withLock { $0 += 1 }
    }
    $user.withLock { $0.settings.theme = "dark" }
    #expect(told.withLock { $0 } == 1)
    withObservationTracking {
      _ = user
    } onChange: {
      told.withLock { $0 += 1 }
    }
    theme.withLock { $0 = "light" }
    #expect(told.withLock { $0 } == 2)
  }

  @Test("A reader projects too, and reads changes made through the writer")
  func readerProjection() {
    @Shared(value: User(name: "a")) var user
    let reader = SharedReader($user)
    let name = reader.name
    $user.name.withLock { $0 = "b" }
    #expect(name.wrappedValue == "b")
    #expect(String(describing: reader).hasPrefix("SharedReader<User>("))
  }

  @Test("Shared of an optional is nil while it is nil, and follows it while it is not")
  func optional() throws {
    @Shared(value: nil) var wrapped: Int?
    #expect(Shared($wrapped) == nil)
    $wrapped.withLock { $0 = 0 }
    let count = try #require(Shared($wrapped))
    count.withLock { $0 += 1 }
    #expect(wrapped == 1)
    _ = $wrapped.withLock { $0? += 1 }
    #expect(count.wrappedValue == 2)
    $wrapped.withLock { $0 = nil }
    #expect(count.wrappedValue == 2, "the last value, not a crash")
    count.withLock { $0 = 99 }
    #expect(wrapped == nil, "a change while nil is dropped")
    $wrapped.withLock { $0 = 4 }
    #expect(count.wrappedValue == 4)
  }

  struct Note: Equatable, Identifiable, Sendable {
    var id: Int
    var text: String
  }

  @Test("Element references stay on their element when the collection is reordered or grows")
  func elementsFollowTheirID() throws {
    @Shared(value: [Note(id: 1, text: "a"), Note(id: 2, text: "b")]) var notes
    let elements = $notes.elements
    #expect(elements.map(\.wrappedValue.id) == [1, 2])
    $notes.withLock {
      $0.reverse()
      $0.insert(Note(id: 3, text: "c"), at: 0)
    }
    elements[0].withLock { $0.text = "A" }
    #expect(notes == [Note(id: 3, text: "c"), Note(id: 2, text: "b"), Note(id: 1, text: "A")])
    let second = try #require($notes[id: 2])
    second.withLock { $0.text = "B" }
    #expect(notes[1].text == "B")
    #expect($notes[id: 42] == nil)
  }

  @Test("A reference to a removed element reads its last value and drops changes, never crashes")
  func removedElement() async throws {
    @Shared(value: [Note(id: 1, text: "a"), Note(id: 2, text: "b")]) var notes
    let last = try #require($notes[id: 2])
    _ = $notes.withLock { $0.removeLast() }
    #expect(last.wrappedValue == Note(id: 2, text: "b"))
    last.withLock { $0.text = "changed" }
    #expect(notes == [Note(id: 1, text: "a")], "nothing came back")
    await #expect(throws: MissingPartError.self) { try await last.update { $0.text = "again" } }
  }

  @Test("A member of an element reference changes its element, and of a removed one drops changes")
  func memberOfElement() async throws {
    @Shared(value: [Note(id: 1, text: "a"), Note(id: 2, text: "b")]) var notes
    let text = try #require($notes[id: 2]).text
    text.withLock { $0 = "B" }
    #expect(notes[1].text == "B")
    $notes.withLock { $0.reverse() }
    text.withLock { $0 += "!" }
    #expect(notes[0] == Note(id: 2, text: "B!"))
    _ = $notes.withLock { $0.removeFirst() }
    #expect(text.wrappedValue == "B!")
    text.withLock { $0 = "changed" }
    #expect(notes == [Note(id: 1, text: "a")], "nothing came back")
    await #expect(throws: MissingPartError.self) { try await text.update { $0 = "again" } }
  }

  @Test("Values stream: the current value first, then each change, from any thread")
  func valuesStream() async throws {
    @Shared(.inMemory("stream")) var count = 0
    let shared = $count
    let counts = StreamRecording(shared.values)
    #expect(await waitUntil { counts.elements == [0] })
    shared.withLock { $0 = 1 }
    #expect(await waitUntil { counts.elements == [0, 1] })
    await Task.detached { shared.withLock { $0 = 2 } }.value
    #expect(await waitUntil { counts.elements == [0, 1, 2] })
    let name = Shared(value: User()).name
    let names = StreamRecording(name.values)
    #expect(await waitUntil { names.elements == [""] })
    name.withLock { $0 = "x" }
    #expect(await waitUntil { names.elements == ["", "x"] })
  }

  @Test("Ending the iteration of values ends the subscription")
  func valuesCancellation() async throws {
    @Shared(value: 0) var count
    let shared = $count
    let task = Task {
      var seen = 0
      for await _ in shared.values { seen += 1 }
      return seen
    }
    task.cancel()
    _ = await task.value
    shared.withLock { $0 += 1 }
  }
}
