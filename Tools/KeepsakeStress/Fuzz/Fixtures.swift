import Foundation

/// The golden fixtures of every drafts format version, embedded so the fuzz campaign's binary is
/// self-contained.
///
/// NB: byte-for-byte copies of `Tests/DraftsTests/Fixtures/*.json` (a test compares them). The
/// fixtures are never edited, so neither are these copies.
public enum Fixtures {
  /// One fixture: its file name and bytes.
  public struct Fixture: Sendable {
    /// The fixture's file name in `Tests/DraftsTests/Fixtures`.
    public var name: String
    /// The fixture's bytes.
    public var bytes: Data
  }

  /// Every fixture, oldest version first.
  public static let all: [Fixture] = [
    Fixture(name: "drafts-legacy-prerelease.json", bytes: Data(legacyPrerelease.utf8)),
    Fixture(name: "drafts-v1.json", bytes: Data(v1.utf8)),
    Fixture(name: "drafts-v2.json", bytes: Data(v2.utf8)),
    Fixture(name: "drafts-v3.json", bytes: Data(v3.utf8)),
  ]
}

// Version 1 (bare array, pre-release builds): drafts-legacy-prerelease.json.
private let legacyPrerelease = ##"""
  [{"id":"3C9A5E10-7B2D-4E6F-9A1B-2C3D4E5F6A01","pinned":true,"text":"Beta: revisar la sincronización ☁️"},{"id":"3C9A5E10-7B2D-4E6F-9A1B-2C3D4E5F6A02","pinned":false,"text":"Ελληνικά και русский в одной заметке"},{"id":"3C9A5E10-7B2D-4E6F-9A1B-2C3D4E5F6A03","text":"Sin fijar: لا تنسَ الموعد 🧑🏽‍💻"},{"build":"0.9.1","id":"3C9A5E10-7B2D-4E6F-9A1B-2C3D4E5F6A04","pinned":true,"text":"Querida Marta: te escribo estas líneas desde el tren, mientras el paisaje de Castilla pasa despacio por la ventana y el revisor anuncia que llegaremos con veinte minutos de retraso. Quería contarte, antes de que se me olvide, todo lo que hablamos ayer sobre el proyecto del huerto comunitario. La idea es sencilla: cada vecino se ocupa de una parcela durante un mes, apunta en el cuaderno qué ha sembrado y qué ha recogido, y al final de la temporada repartimos lo que sobre entre quienes no han podido participar. Lo difícil no es el trabajo, sino ponernos de acuerdo en los turnos, porque ya sabes que Julián solo puede los sábados y que la señora Pilar no quiere ni oír hablar de madrugar. También pensé en pedir al ayuntamiento que nos deje usar el agua de la fuente vieja; si no, tendremos que cargar garrafas desde el portal, y eso no lo aguanta nadie en agosto. Por cierto, el presupuesto para semillas, herramientas y una caseta pequeña ronda los trescientos euros, que podríamos cubrir con una rifa en las fiestas. Te dejo aquí la lista de cosas pendientes para que no se pierda: hablar con el presidente de la comunidad, pedir presupuesto de la caseta, preguntar por el agua, imprimir los carteles y, sobre todo, convencer a tu hermano de que nos preste la furgoneta. Un abrazo muy fuerte, y dale recuerdos a todos de mi parte. ¡Nos vemos el jueves!"}]

  """##

// Version 1 (bare array): drafts-v1.json.
private let v1 = ##"""
  [
    {"id": "0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B01", "text": "Comprar café, pan de centeno y piñones"},
    {"id": "0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B02", "text": "会議のメモ：来週の火曜日に資料を共有する"},
    {"id": "0b7c6f2a-1d3e-4f5a-8b9c-0d1e2f3a4b03", "text": "שלום! להתקשר לדנה לפני יום שישי"},
    {"id": "0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B04", "text": "Viaje en familia 👨‍👩‍👧‍👦 y desfile 🏳️‍🌈 🇪🇸", "color": "blue"},
    {"id": "0B7C6F2A-1D3E-4F5A-8B9C-0D1E2F3A4B05", "text": "Línea uno\nLínea \"dos\"\tcon tabulador y \u00e9 escrita como escape"}
  ]

  """##

// Version 2 (envelope): drafts-v2.json.
private let v2 = ##"""
  {
    "version" : 2,
    "savedBy" : "Drafts 2.4 (build 812)",
    "content" : [
      {
        "id" : "5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E01",
        "text" : "Pedir cita con la dentista 🦷",
        "pinned" : true
      },
      {
        "id" : "5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E02",
        "text" : "読書リスト：『雪国』と『こころ』",
        "pinned" : false
      },
      {
        "id" : "5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E03",
        "text" : "مرحبا بالعالم — نص من اليمين إلى اليسار",
        "pinned" : false,
        "lastOpenedAt" : 726244000.5
      },
      {
        "id" : "5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E04",
        "text" : "Equipo 👩🏻‍🚀👨🏿‍🔬 y bandera 🏴‍☠️",
        "pinned" : true
      },
      {
        "id" : "5D2E8A41-9C3B-4A7D-8E6F-1A2B3C4D5E05",
        "text" : "",
        "pinned" : false
      }
    ]
  }

  """##

// Version 3 (envelope, current): drafts-v3.json.
private let v3 = ##"""
  {"content":[{"body":"Plan de la semana: lunes gimnasio, martes inglés","id":"8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D01","pinned":true,"tags":["personal","rutina","2024"]},{"body":"東京で買うもの：抹茶、文房具","id":"8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D02","pinned":false,"tags":[]},{"body":"עברית ו-English באותה שורה","id":"8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D03","pinned":false,"tags":["idiomas"]},{"body":"Celebración 🎉👨‍👩‍👧 con ❤️‍🔥","id":"8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D04","mood":"happy","pinned":true,"tags":["familia","fiesta"]},{"body":"Querida Marta: te escribo estas líneas desde el tren, mientras el paisaje de Castilla pasa despacio por la ventana y el revisor anuncia que llegaremos con veinte minutos de retraso. Quería contarte, antes de que se me olvide, todo lo que hablamos ayer sobre el proyecto del huerto comunitario. La idea es sencilla: cada vecino se ocupa de una parcela durante un mes, apunta en el cuaderno qué ha sembrado y qué ha recogido, y al final de la temporada repartimos lo que sobre entre quienes no han podido participar. Lo difícil no es el trabajo, sino ponernos de acuerdo en los turnos, porque ya sabes que Julián solo puede los sábados y que la señora Pilar no quiere ni oír hablar de madrugar. También pensé en pedir al ayuntamiento que nos deje usar el agua de la fuente vieja; si no, tendremos que cargar garrafas desde el portal, y eso no lo aguanta nadie en agosto. Por cierto, el presupuesto para semillas, herramientas y una caseta pequeña ronda los trescientos euros, que podríamos cubrir con una rifa en las fiestas. Te dejo aquí la lista de cosas pendientes para que no se pierda: hablar con el presidente de la comunidad, pedir presupuesto de la caseta, preguntar por el agua, imprimir los carteles y, sobre todo, convencer a tu hermano de que nos preste la furgoneta. Un abrazo muy fuerte, y dale recuerdos a todos de mi parte. ¡Nos vemos el jueves!","id":"8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D05","pinned":false,"tags":["cartas"]}],"version":3}

  """##
