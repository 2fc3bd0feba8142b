// expect-error: a key needs a default for when nothing is stored
import Keepsake

func declaresAKeyWithoutADefault() {
  @Shared(.inMemory("items")) var items: [Int]
  _ = items
}
