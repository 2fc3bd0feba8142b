// expect-no-error
import Keepsake

func declaresAnOptionalKeyWithoutADefault() {
  @Shared(.inMemory("items")) var items: [Int]?
  @SharedReader(.inMemory("name")) var name: String?
  _ = (items, name)
}
